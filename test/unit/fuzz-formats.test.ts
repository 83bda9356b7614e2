/**
 * Property tests of the rendered formats' parsers (issue 36 item 7): damaged files (bytes flipped, cut,
 * inserted) and random markup inside well-formed archives give a document or a failure with a stage and
 * a documented code — never an exception, never `internal` (a defect), and never a hang.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { INGEST_ERROR_CODES } from '../../src/shared/failed-document';
import { ingestBytes } from '../../src/index/ingest/ingest-file';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { runs, trialsOf } from '../fuzz';
import { fixture } from '../helpers';
import { docx, epub, pptx, slideXml, xhtml } from '../hostile-zips';
import { recordTrials } from '../reliability/trials';

const ID = { doc_id: 'd1', source_label: 'fuzz', aliases: [] };

async function outcomeOf(name: string, bytes: Uint8Array): Promise<string> {
  const out = await ingestBytes(`/fuzz/${name}`, bytes, ID, DEFAULT_INGEST_OPTIONS);
  if (out.ok) return 'ok';
  const f = out.failure;
  assert.ok((INGEST_ERROR_CODES as readonly string[]).includes(f.code), f.code);
  assert.notEqual(f.code, 'internal', `${name}: ${f.message}`);
  assert.ok(f.message.length > 10, 'a failure says what was wrong');
  return `${f.stage}/${f.code}`;
}

/** A damaged copy: bytes overwritten, a cut, or bytes inserted, at positions fast-check picks. */
const damage = (size: number) =>
  fc.oneof(
    fc.array(fc.tuple(fc.nat({ max: size - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }).map((flips) => (b: Buffer) => {
      const c = Buffer.from(b);
      for (const [i, v] of flips) c[i] = v;
      return c;
    }),
    fc.nat({ max: size - 1 }).map((n) => (b: Buffer) => b.subarray(0, Math.max(1, n))),
    fc.tuple(fc.nat({ max: size - 1 }), fc.uint8Array({ minLength: 1, maxLength: 64 })).map(([at, extra]) => (b: Buffer) => Buffer.concat([b.subarray(0, at), extra, b.subarray(at)])),
  );

/** Markup made of a format's own tags, text, entities and stray brackets. */
const markup = (tags: string[]) =>
  fc
    .array(fc.oneof(fc.constantFrom(...tags.flatMap((t) => [`<${t}>`, `</${t}>`, `<${t}/>`]), '&amp;', '&nbsp;', '&#0;', '&#xD800;', '<', '>', ']]>', '<!--', '-->', '<![CDATA[', '"', "'"), fc.string({ maxLength: 20 })), { maxLength: 60 })
    .map((parts) => parts.join(''));

const FIXTURES = ['photosynthesis.docx', 'photosynthesis.epub', 'cell-biology-course.html', 'respiration-slides.pptx'];

describe('fuzzing the Word, EPUB, HTML and PowerPoint parsers', () => {
  for (const name of FIXTURES) {
    it(`${name}, damaged: a document or a failure in words`, async () => {
      const original = fs.readFileSync(fixture('formats', name));
      const seen = new Set<string>();
      await fc.assert(
        fc.asyncProperty(damage(original.length), async (hurt) => {
          seen.add(await outcomeOf(name, hurt(original)));
        }),
        runs(40),
      );
      assert.ok(seen.size >= 1);
      recordTrials({ area: 'hostile input', fault: `${name.split('.').pop()!.toUpperCase()} with bytes flipped, cut or inserted (property test)`, trials: trialsOf(40), outcome: `each a document or a failure with a stage and code (${[...seen].sort().join(', ')}); never internal` }, __filename);
    });
  }

  it('random markup inside well-formed archives and pages: a document or a failure in words', async () => {
    const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
    const make: Array<[string, (m: string) => Buffer]> = [
      ['x.docx', (m) => docx(Buffer.from(`<?xml version="1.0"?><w:document ${W}><w:body>${m}</w:body></w:document>`))],
      ['x.epub', (m) => epub(Buffer.from(xhtml(m)))],
      ['x.pptx', (m) => pptx(Buffer.from(slideXml(m, m)))],
      ['x.html', (m) => Buffer.from(`<html><body>${m}</body></html>`)],
    ];
    const tags = ['w:p', 'w:r', 'w:t', 'w:tbl', 'w:tr', 'w:tc', 'a:p', 'a:r', 'a:t', 'p', 'h1', 'h2', 'ul', 'li', 'table', 'tr', 'td', 'div', 'pre', 'script', 'br', 'section'];
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: make.length - 1 }), markup(tags), async (i, m) => {
        const [name, build] = make[i]!;
        await outcomeOf(name, build(m));
      }),
      runs(200),
    );
    recordTrials({ area: 'hostile input', fault: 'random markup inside Word, EPUB and PowerPoint archives and web pages (property test)', trials: trialsOf(200), outcome: 'each a document or a failure with a stage and code; never internal' }, __filename);
  });
});
