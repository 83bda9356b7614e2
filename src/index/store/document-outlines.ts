import fsSync from 'node:fs';
import { z } from 'zod';
import { StoreError, errorMessage } from '../../common/errors';
import { readFullySync } from '../../common/read-file';
import { Section } from '../../shared/document';

/**
 * A document's outline (its `sections`) left in documents.jsonl until it is first read. The outlines
 * are nearly all of the file (a textbook's 61 sections with their first sentences: 55 of a million
 * blocks' 56 MB); parsing and checking them took 635 ms of a 1.5 s load and made 68 MB of heap objects,
 * whose marking then held the event loop 40 ms per full collection. A search never reads an outline;
 * get_outline, list_documents and the starting questions read a few.
 */

/** The key as a line holds it: unescaped quotes cannot be inside a string, and no nested object has a key of that name. */
const SECTIONS_KEY = Buffer.from('"sections":');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Where the `sections` array of the line bytes[from, to) lies: [start, end) of its `[…]`, found by
 * matching brackets outside strings, and how many objects it holds; null when the line has no such key,
 * or its value is not an array closed inside the line (the caller then parses the whole line, which
 * reports what is wrong).
 */
export function sectionsSpan(bytes: Buffer, from: number, to: number): [number, number, number] | null {
  const key = bytes.indexOf(SECTIONS_KEY, from);
  if (key < 0 || key + SECTIONS_KEY.length >= to) return null;
  let i = key + SECTIONS_KEY.length;
  while (i < to && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0d)) i++;
  if (bytes[i] !== 0x5b) return null;
  const start = i;
  let depth = 0;
  let objects = 0;
  let inString = false;
  for (; i < to; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x7b) {
      if (depth === 1) objects++;
      depth++;
    } else if (c === 0x5b) depth++;
    else if ((c === 0x5d || c === 0x7d) && --depth === 0) return [start, i + 1, objects];
  }
  return null;
}

const Sections = z.array(Section);

/** Each outline's section count, counted while its line was read (list_documents shows counts, not outlines). */
const counted = new WeakMap<object, number>();

/** How many sections a document has: counted at load when its outline is still in the file. */
export function sectionCount(doc: { sections: readonly unknown[] }): number {
  return Object.getOwnPropertyDescriptor(doc, 'sections')?.get ? (counted.get(doc) ?? doc.sections.length) : doc.sections.length;
}

/**
 * Gives `doc` a `sections` property read from bytes [offset, offset + length) of `file` on first access,
 * checked then (a damaged outline is store_corrupt naming the file), and kept as a plain property from
 * then on. Enumerable, so serialising or spreading the document gives its outline.
 */
export function outlineFromFile(doc: object, file: string, offset: number, length: number, sections: number): void {
  counted.set(doc, sections);
  const docId = (doc as { doc_id?: unknown }).doc_id;
  const corrupt = (what: string, cause?: unknown) => new StoreError('store_corrupt', `${file}: ${what}; rebuild the index (docqa index)`, cause ? { cause } : undefined);
  Object.defineProperty(doc, 'sections', {
    enumerable: true,
    configurable: true,
    get(this: object) {
      const bytes = Buffer.allocUnsafe(length);
      let fd: number;
      try {
        fd = fsSync.openSync(file, 'r');
      } catch (err) {
        throw corrupt(`unreadable (the outline of ${String(docId)}): ${errorMessage(err)}`, err);
      }
      try {
        if (!readFullySync(fd, bytes, offset)) throw corrupt(`ends early (the outline of ${String(docId)})`);
      } finally {
        fsSync.closeSync(fd);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(bytes.toString('utf8'));
      } catch (err) {
        throw corrupt(`the outline of ${String(docId)} is damaged`, err);
      }
      const r = Sections.safeParse(parsed);
      if (!r.success) throw corrupt(`the outline of ${String(docId)} does not match its schema (${r.error.issues[0]?.path.join('.') ?? ''})`);
      Object.defineProperty(this, 'sections', { value: r.data, enumerable: true, configurable: true, writable: true });
      return r.data;
    },
  });
}
