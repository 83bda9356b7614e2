/**
 * A PDF may encrypt only its attachments (PDF 2.0 §7.6.6, the /EFF crypt filter, with /StmF and /StrF
 * /Identity): its pages are plain, and a reader asks for the password only when an attachment is
 * opened. pdf.js asks for it before anything (it checks the password whenever /Encrypt is there), so
 * such a file was refused as password-protected although every page is readable.
 */

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/** The dictionary text of object `num gen` written as a plain object (an encryption dictionary never sits in an object stream). */
function objectDict(text: string, num: string, gen: string): string | null {
  const m = new RegExp(`(?:^|[\\s>])${num}\\s+${gen}\\s+obj\\b([\\s\\S]*?)\\bendobj\\b`).exec(text);
  return m ? m[1]! : null;
}

/** /StmF and /StrF are /Identity (or absent, which means Identity) in a crypt-filter dictionary (V 4 or 5). */
function pagesUnencrypted(dict: string): boolean {
  if (!/\/V\s+[45]\b/.test(dict)) return false;
  const filter = (key: string) => new RegExp(`/${key}\\s*/([A-Za-z0-9#_.-]+)`).exec(dict)?.[1] ?? 'Identity';
  return filter('StmF') === 'Identity' && filter('StrF') === 'Identity';
}

/**
 * The same file with its /Encrypt entries renamed (to /NoCrypt, as long, so no offset moves) when the
 * encryption covers only attachments; null when the pages themselves are encrypted, or when the
 * dictionary cannot be found as plain text.
 */
export function withoutAttachmentEncryption(bytes: Uint8Array): Uint8Array | null {
  const text = latin1(bytes);
  const refs = [...text.matchAll(/\/Encrypt\s+(\d+)\s+(\d+)\s+R/g)];
  if (refs.length === 0) return null;
  for (const [, num, gen] of refs) {
    const dict = objectDict(text, num!, gen!);
    if (dict === null || !pagesUnencrypted(dict)) return null;
  }
  const out = Uint8Array.from(bytes);
  const name = Buffer.from('/NoCrypt', 'latin1');
  for (const m of refs) out.set(name, m.index!);
  return out;
}
