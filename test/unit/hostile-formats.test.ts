/**
 * Hostile Word files, e-books, web pages and decks (issue 36 item 7), parsed as a worker parses them
 * (ingestBytes): each fails alone with the stage, code and words a person can act on, or is read as
 * text; nothing is inflated past its bounds, no entity is expanded, no file is read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ingestBytes } from '../../src/index/ingest/ingest-file';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { DEFAULT_ZIP_LIMITS } from '../../src/index/parse/zip-archive';
import { billionLaughs, bombPayload, docx, epub, externalEntity, makeZip, oleFile, pptx, slideXml, wordParagraph, xhtml } from '../hostile-zips';

const ID = { doc_id: 'd1', source_label: 'hostile', aliases: [] };
type Expect = { ok: true; text: RegExp } | { ok: false; stage: string; code: string; message: RegExp };

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const bombMb = DEFAULT_ZIP_LIMITS.maxPartBytes / 2 ** 20 + 16;

const CASES: Array<{ name: string; bytes: () => Buffer | string; expect: Expect }> = [
  { name: 'plain.docx', bytes: () => docx(wordParagraph('Mitochondria make ATP.')), expect: { ok: true, text: /Mitochondria make ATP/ } },
  { name: 'bomb.docx', bytes: () => docx(bombPayload(bombMb)), expect: { ok: false, stage: 'parse', code: 'too_large', message: /word\/document\.xml would unpack to \d+ MB .*over the 128 MB DocQA unpacks from one part of a Word document/ } },
  { name: 'lying-bomb.docx', bytes: () => docx(bombPayload(64), 4096), expect: { ok: false, stage: 'parse', code: 'too_large', message: /unpacks to more than the 4096 bytes its archive declares \(a zip bomb\)/ } },
  { name: 'laughs.docx', bytes: () => docx(Buffer.from(billionLaughs('w:document', `<w:document ${W}><w:body>${wordParagraph('LAUGHS')}</w:body></w:document>`))), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /word\/document\.xml of this Word document declares XML entities/ } },
  { name: 'xxe.docx', bytes: () => docx(Buffer.from(externalEntity('w:document', `<w:document ${W}><w:body>${wordParagraph('LAUGHS')}</w:body></w:document>`))), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /declares XML entities .*external-entity/ } },
  { name: 'deep.docx', bytes: () => docx('<w:p>'.repeat(100_000) + '</w:p>'.repeat(100_000)), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /nests elements more than 1000 deep/ } },
  { name: 'text-renamed.docx', bytes: () => 'This is a plain text file that someone renamed to .docx.\n', expect: { ok: false, stage: 'parse', code: 'corrupt', message: /not a valid Word document: it is not a zip archive/ } },
  { name: 'zip-not-word.docx', bytes: () => makeZip([{ name: 'notes.txt', data: 'hello' }]), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /not a valid Word document: .*not a \.docx/ } },
  { name: 'old-doc.docx', bytes: () => oleFile(false), expect: { ok: false, stage: 'parse', code: 'unsupported_format', message: /Word 97–2003 \(\.doc\) file with a \.docx name: .*save it as \.docx/ } },
  { name: 'locked.docx', bytes: () => oleFile(true), expect: { ok: false, stage: 'parse', code: 'encrypted', message: /password-protected/ } },
  { name: 'entries.docx', bytes: () => makeZip(Array.from({ length: DEFAULT_ZIP_LIMITS.maxEntries + 1 }, (_, i) => ({ name: `f${i}`, data: '', store: true }))), expect: { ok: false, stage: 'parse', code: 'too_large', message: /20001 entries in its archive, over the 20000 DocQA opens/ } },
  { name: 'plain.epub', bytes: () => epub(xhtml('<h1>Ch 1</h1><p>Ribosomes build proteins.</p>')), expect: { ok: true, text: /Ribosomes build proteins/ } },
  { name: 'bomb.epub', bytes: () => epub(bombPayload(bombMb)), expect: { ok: false, stage: 'parse', code: 'too_large', message: /OEBPS\/ch1\.xhtml would unpack to .*EPUB e-book/ } },
  { name: 'laughs.epub', bytes: () => epub(billionLaughs('html', xhtml('<p>LAUGHS</p>').replace(/^<\?xml[^>]*>/, ''))), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /OEBPS\/ch1\.xhtml of this EPUB e-book declares XML entities/ } },
  { name: 'no-container.epub', bytes: () => makeZip([{ name: 'mimetype', data: 'application/epub+zip', store: true }]), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /no META-INF\/container\.xml/ } },
  { name: 'plain.pptx', bytes: () => pptx(slideXml('Glycolysis', 'Two ATP per glucose')), expect: { ok: true, text: /Two ATP per glucose/ } },
  { name: 'bomb.pptx', bytes: () => pptx(bombPayload(bombMb)), expect: { ok: false, stage: 'parse', code: 'too_large', message: /ppt\/slides\/slide1\.xml would unpack to .*PowerPoint presentation/ } },
  { name: 'laughs.pptx', bytes: () => pptx(billionLaughs('p:sld', slideXml('T', 'LAUGHS').replace(/^<\?xml[^>]*>/, ''))), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /slide1\.xml of this PowerPoint presentation declares XML entities/ } },
  { name: 'not-deck.pptx', bytes: () => makeZip([{ name: 'a.xml', data: '<a/>' }]), expect: { ok: false, stage: 'parse', code: 'corrupt', message: /no ppt\/presentation\.xml/ } },
  // A page is text, not an archive: its dangers are markup. Scripts never run, deep nesting is read flat.
  { name: 'script.html', bytes: () => '<html><head><title>T</title><script>document.write("PWNED")</script></head><body><p>Osmosis moves water.</p><img src="https://example.com/x.png" onerror="alert(1)"></body></html>', expect: { ok: true, text: /^Osmosis moves water\.$/ } },
  { name: 'deep.html', bytes: () => `<html><body>${'<div>'.repeat(20_000)}<p>Deep but readable text about diffusion, long enough to count.</p>${'</div>'.repeat(20_000)}</body></html>`, expect: { ok: true, text: /Deep but readable text about diffusion/ } },
  { name: 'binary.html', bytes: () => Buffer.from([0x3c, 0x68, 0, 0, 1, 2, 3]), expect: { ok: false, stage: 'decode', code: 'binary', message: /NUL bytes/ } },
];

describe('hostile files of the rendered formats', () => {
  for (const c of CASES) {
    it(`${c.name}: ${c.expect.ok ? 'read as text' : `fails ${c.expect.stage}/${c.expect.code}`}`, async () => {
      const raw = c.bytes();
      const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
      const heap = process.memoryUsage().heapUsed;
      const out = await ingestBytes(`/hostile/${c.name}`, bytes, ID, DEFAULT_INGEST_OPTIONS);
      if (c.expect.ok) {
        assert.ok(out.ok, JSON.stringify(!out.ok && out.failure));
        assert.match(out.document.blocks.map((b) => b.text).join('\n'), c.expect.text);
        assert.ok(!out.document.blocks.some((b) => /PWNED|root:x:0/.test(b.text)));
      } else {
        assert.ok(!out.ok, `${c.name} should fail`);
        assert.deepEqual([out.failure.stage, out.failure.code], [c.expect.stage, c.expect.code], out.failure.message);
        assert.match(out.failure.message, c.expect.message);
      }
      // Nothing was inflated past the bounds: a bomb leaves no hundreds of MB behind.
      assert.ok(process.memoryUsage().heapUsed - heap < 400 * 2 ** 20, 'bounded memory');
    });
  }
});
