import { IngestError } from '../../common/errors';

export type TextEncodingName = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'gb18030' | 'big5';

export interface DecodedText {
  text: string;
  encoding: TextEncodingName;
}

const SNIFF_BYTES = 8192;

/** NUL bytes in the head of a file without a UTF-16 BOM mean binary content, not text. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, SNIFF_BYTES).indexOf(0) >= 0;
}

/** `bytes` decoded as `label`, or null when they are not valid in it. */
export function strictDecode(label: string, bytes: Uint8Array): string | null {
  try {
    return new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * GB18030 maps almost any byte pair to some character, so a successful decode is not proof. Accept it
 * only when the non-ASCII characters are overwhelmingly CJK (Han, CJK punctuation, full-width forms):
 * that is what a GBK note looks like, and what Latin-1 or random bytes do not.
 */
function plausibleChinese(text: string): boolean {
  let nonAscii = 0;
  let cjk = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) continue;
    nonAscii++;
    if (
      (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
      (c >= 0x3400 && c <= 0x4dbf) || // extension A
      (c >= 0x3000 && c <= 0x303f) || // CJK symbols and punctuation
      (c >= 0xff00 && c <= 0xffef) || // full-width forms
      (c >= 0x2000 && c <= 0x206f) || // general punctuation (“ ” — …)
      (c >= 0x3040 && c <= 0x30ff) || // kana (GBK has them)
      c === 0xb7 ||
      c === 0xd7 ||
      c === 0xf7
    )
      cjk++;
  }
  return nonAscii === 0 || cjk / nonAscii >= 0.9;
}

/**
 * Decodes a text file: UTF-8 (with or without BOM), UTF-16 with BOM, GB18030/GBK, or Big5 (Traditional
 * Chinese notes from Taiwan and Hong Kong). Anything else fails with an `encoding` error naming what was
 * tried; nothing is decoded lossily. GBK is tried before Big5: read as GBK, Big5 text is 40–70 % kana,
 * Greek, Cyrillic and symbols (measured on Traditional notes), which plausibleChinese turns down, while
 * GBK text never gets as far as Big5.
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    const text = strictDecode('utf-8', bytes.subarray(3));
    if (text === null) throw new IngestError('decode', 'encoding', 'file starts with a UTF-8 BOM but is not valid UTF-8');
    return { text, encoding: 'utf-8-bom' };
  }
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    const text = strictDecode('utf-16le', bytes.subarray(2));
    if (text === null) throw new IngestError('decode', 'encoding', 'file starts with a UTF-16LE BOM but is not valid UTF-16LE');
    return { text, encoding: 'utf-16le' };
  }
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    const text = strictDecode('utf-16be', bytes.subarray(2));
    if (text === null) throw new IngestError('decode', 'encoding', 'file starts with a UTF-16BE BOM but is not valid UTF-16BE');
    return { text, encoding: 'utf-16be' };
  }
  if (looksBinary(bytes)) {
    throw new IngestError('decode', 'binary', 'file contains NUL bytes: binary data, not text');
  }
  const utf8 = strictDecode('utf-8', bytes);
  if (utf8 !== null) return { text: utf8, encoding: 'utf-8' };
  const gb = strictDecode('gb18030', bytes);
  if (gb !== null && plausibleChinese(gb)) return { text: gb, encoding: 'gb18030' };
  const big5 = strictDecode('big5', bytes);
  if (big5 !== null && plausibleChinese(big5)) return { text: big5, encoding: 'big5' };
  throw new IngestError(
    'decode',
    'encoding',
    'text is not valid UTF-8, UTF-16 (with BOM), GB18030/GBK or Big5; re-save the file as UTF-8',
  );
}
