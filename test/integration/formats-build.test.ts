/**
 * Word files, e-books, web pages and decks go through everything notes go through, with no special case
 * (issue 36 item 8): the egress confirmation counts them, a build embeds and indexes them, the five
 * tools read them, a citation resolves to its rendered location, and an incremental rebuild re-reads
 * only the file that changed and embeds only its new text.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import type { EgressPlan } from '../../src/index/store/egress-consent';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';
import { docx, wordParagraph } from '../hostile-zips';

const KEY = 'sk-formats-build-key';

describe('the rendered formats through builds, egress, tools and citations', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer({ apiKey: KEY, auto: true }).start();
  });
  after(() => server.close());

  it('egress counts them, the tools read them, citations resolve to their rendered spot, an edit re-reads and re-embeds only that file', async () => {
    const root = tempDir('docqa-formats-');
    for (const f of ['photosynthesis.docx', 'photosynthesis.epub', 'cell-biology-course.html', 'respiration-slides.pptx']) fs.copyFileSync(fixture('formats', f), path.join(root, f));
    const handout = path.join(root, 'handout.docx');
    fs.writeFileSync(handout, docx(`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Enzymes</w:t></w:r></w:p>${wordParagraph('Enzymes lower the activation energy of a reaction.')}`));
    const app = new DocQaApp({
      dataDir: path.join(tempDir('docqa-formats-data-'), 'data'),
      settings: AppSettings.parse({ chat: { base_url: server.baseURL }, embedding: { provider: 'openai-compatible', base_url: server.baseURL, model: 'fake-embed', dimensions: 16 } }),
      keys: fixedKeys(KEY, KEY),
      appVersion: 'test',
    });
    try {
      await app.addSources([root]);
      const plans: EgressPlan[] = [];
      const first = await (await app.startBuild({ confirmEgress: async (p) => (plans.push(p), true) })).done;
      assert.ok(first);
      assert.equal(plans.length, 1);
      assert.equal(plans[0]!.files, 5, 'the confirmation counts every file that will be sent, whatever its format');
      const snap = (await app.activeSnapshot())!;
      assert.equal(snap.state, 'ready');
      assert.equal(snap.documents.length, 5);

      // The tools: documents, an outline of slides, every block of a chapter, a term in an e-book and a page.
      const list = (await app.runTool('list_documents', {})) as unknown as { documents: Array<{ doc_id: string; title: string }> };
      assert.deepEqual(list.documents.map((d) => d.title).sort(), ['Cell Respiration Lecture', 'Cell Respiration — BIO 110 Course Pages', 'Enzymes', 'Photosynthesis Study Guide', 'Photosynthesis Study Guide']);
      const byTitle = new Map(list.documents.map((d) => [d.title, d.doc_id]));
      const deck = byTitle.get('Cell Respiration Lecture')!;
      const outline = (await app.runTool('get_outline', { doc_ids: [deck] })) as unknown as { documents: Array<{ sections: Array<{ path: string }> }> };
      assert.deepEqual(outline.documents[0]!.sections.map((s) => s.path), ['Cell Respiration Lecture', 'Why cells respire', 'The three stages', '有氧呼吸小结', 'Questions']);
      const notes = (await app.runTool('scan_term', { term: 'breakfast' })) as unknown as { hits: Array<{ doc_id: string; block_id: string; section_path: string }> };
      assert.deepEqual(notes.hits.map((b) => [b.doc_id, b.section_path]), [[deck, 'Why cells respire']]);
      const cite = await app.block({ doc_id: notes.hits[0]!.doc_id, block_id: notes.hits[0]!.block_id });
      assert.ok(cite.found);
      assert.deepEqual(cite.location, { kind: 'slide', slide: 2, first: 2, last: 3 });
      assert.equal(cite.path, path.join(root, 'respiration-slides.pptx'));
      const zh = (await app.runTool('scan_term', { term: '类囊体薄膜' })) as unknown as { hits: Array<{ doc_id: string; block_id: string }> };
      const kinds = await Promise.all(zh.hits.map(async (b) => ((await app.block(b)) as { location: { kind: string } }).location.kind));
      assert.deepEqual([...new Set(kinds)].sort(), ['chapter', 'paragraphs'], 'the Word file by paragraph, the e-book by chapter');
      const search = (await app.runTool('search_blocks', { query: 'chemiosmosis ATP synthase' })) as unknown as { blocks: Array<{ doc_title: string }> };
      assert.ok(search.blocks.some((b) => b.doc_title === 'Cell Respiration — BIO 110 Course Pages'));

      // An edit: only the handout is read again, and only its new paragraph is embedded.
      const embeddedBefore = server.embeddedInputs.length;
      const old = fs.statSync(handout).mtimeMs;
      fs.writeFileSync(handout, docx(`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Enzymes</w:t></w:r></w:p>${wordParagraph('Enzymes lower the activation energy of a reaction.')}${wordParagraph('Competitive inhibitors bind the active site.')}`));
      fs.utimesSync(handout, new Date(), new Date(Math.max(Date.now(), old + 2000)));
      const second = await (await app.startBuild({ confirmEgress: async () => assert.fail('an agreed source is not asked about again') })).done;
      assert.ok(second);
      const snap2 = (await app.activeSnapshot())!;
      const reused = snap2.documents.filter((d) => d.reused).map((d) => path.basename(d.path)).sort();
      assert.deepEqual(reused, ['cell-biology-course.html', 'photosynthesis.docx', 'photosynthesis.epub', 'respiration-slides.pptx']);
      const sent = server.embeddedInputs.slice(embeddedBefore);
      assert.ok(sent.length >= 1 && sent.every((t) => /Competitive inhibitors|Enzymes/.test(t)), `only the handout's changed text was embedded: ${JSON.stringify(sent)}`);
      assert.equal(((await app.runTool('scan_term', { term: 'Competitive inhibitors' })) as unknown as { hits: unknown[] }).hits.length, 1);
    } finally {
      await app.close();
    }
  });
});
