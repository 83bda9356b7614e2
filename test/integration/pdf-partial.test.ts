/**
 * A PDF with one unreadable page was failed whole (issue 30 item 3): now it is indexed without that
 * page, the snapshot is partial and names the page, and the next build, which reuses the unchanged
 * file without parsing it, still says so.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { textPdf } from '../fixtures/pdf-writer';
import { tempDir } from '../helpers';
import { makeCli } from './cli';

interface Summary {
  state: string;
  documents: number;
  reused_documents: number;
  failed_documents: Array<{ path: string; stage: string; code: string; message: string; pages?: number[] }>;
}

describe('a PDF read in part', () => {
  it('is indexed without its unreadable page, which the partial snapshot names, also when the file is reused unparsed', async () => {
    const dir = tempDir('docqa-partial-');
    const pages = [1, 2, 3].map((p) => (p === 2 ? { lines: [], unmapped: [{ y: 700, glyphs: 300 }] } : { lines: [{ text: `Page ${p}: chloroplasts hold chlorophyll, part ${p}.`, y: 700 }] }));
    fs.writeFileSync(path.join(dir, 'paper.pdf'), textPdf(pages));
    fs.writeFileSync(path.join(dir, 'note.md'), '# Note\n\nStomata open in the light.\n');
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    cli.json(['sources', 'add', dir, '--json']);
    for (const build of ['first', 'reused']) {
      const r = await cli.runAsync(['index', '--yes', '--json']);
      assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
      const s = JSON.parse(r.stdout) as Summary;
      assert.equal(s.state, 'ready_partial', build);
      assert.equal(s.documents, 2, build);
      if (build === 'reused') assert.equal(s.reused_documents, 2);
      assert.deepEqual(
        s.failed_documents.map((f) => [path.basename(f.path), f.code, f.pages]),
        [['paper.pdf', 'no_text', [2]]],
        build,
      );
      assert.match(s.failed_documents[0]!.message, /^indexed without page 2, whose text could not be read \(page 2: its text layer is unreadable: 100% of its characters are glyph codes without a Unicode mapping\); the other pages are indexed$/);
    }
    const found = cli.json<{ hits: Array<{ snippet: string }> }>(['tool', 'scan_term', JSON.stringify({ term: 'chloroplasts' })]);
    assert.deepEqual(
      found.hits.map((h) => h.snippet),
      ['Page 1: chloroplasts hold chlorophyll, part 1.', 'Page 3: chloroplasts hold chlorophyll, part 3.'],
    );
    const text = await cli.runAsync(['index', '--yes']);
    assert.match(text.stdout, /PARTIAL .*paper\.pdf: parse\/no_text — indexed without page 2/);
  });
});
