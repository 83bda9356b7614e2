/**
 * Images pasted into notes are often stored inline as data URIs (Typora, Obsidian and Notion exports do
 * it): hundreds of kilobytes of base64 on one line, which became hundreds of blocks of noise, hundreds of
 * thousands of tokens to embed, and keyword hits on random letters. The payload is elided; the rest of
 * the line (the alt text, the media type) stays, and so do its line breaks, so offsets still map to lines.
 */
const DATA_URI = /(data:[\w.+-]+\/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*(?:;base64)?,)[A-Za-z0-9+/=%_-]{256,}/g;

/** Shown where a payload was: the URI says what it was, not what it held. */
export const ELIDED = '…';

export function elideDataUris(text: string): string {
  return text.includes('data:') ? text.replace(DATA_URI, `$1${ELIDED}`) : text;
}
