/**
 * Word files, e-books, saved web pages and slide decks in a real VS Code (code-server), issue 36: each
 * fixture through "DocQA: Inspect Document Structure" (sections as the core computes them), through the
 * tools (a run of `docqa ask` that reads each with list_blocks and cites one block of each), and each
 * citation opened from the trace viewer in DocQA's document view at its spot, highlighted and visible.
 * Run by `npm run test:e2e`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ingestFile } from '../../src/index/ingest/ingest-file';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { DataDir } from '../../src/common/data-dir';
import { readTrace } from '../../src/trace/trace-store';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { makeCli } from '../integration/cli';
import { recordTrials } from '../reliability/trials';
import { CodeServer, QUIET_SETTINGS, endJourney, type Profile, installExtension, makeProfile } from './lib/code-server';
import { ROOT, packagedVsix } from './lib/paths';
import { Journey } from './lib/steps';
import { eventually } from './lib/wait';
import { runCommand } from './lib/quick-input';
import { activeTab, launchBrowser, openFile, openWorkbench, webviewWith, webviewsWith } from './lib/workbench';

const INSPECT = 'DocQA: Inspect Document Structure';

/** The fixtures, and the block of each the answer cites (found by its text). */
const CASES = [
  { file: 'photosynthesis.docx', cite: '| 阶段', tab: /^Photosynthesis Study Guide — ¶ \d+/, shows: /阶段场所产物/ },
  { file: 'photosynthesis.epub', cite: 'Rubisco fixes carbon dioxide', tab: /^Photosynthesis Study Guide — chapter 4, ¶ \d+/, shows: /^Rubisco fixes carbon dioxide/ },
  { file: 'cell-biology-course.html', cite: 'Glycolysis splits', tab: /^Cell Respiration — BIO 110 Course Pages — ¶ \d+/, shows: /^Glycolysis splits one glucose/ },
  { file: 'respiration-slides.pptx', cite: 'almost all of the ATP', tab: /^Cell Respiration Lecture — slide 3$/, shows: /Speaker notes:Point out that almost all of the ATP/ },
] as const;

const act = (tool: string, input: unknown, prev?: string) => `Thought: read it.\nAction: ${tool}[${JSON.stringify({ input, ...(prev ? { previous_observation: { tool_call_id: prev, information_gain: 'GAINED' } } : {}) })}]`;

describe('Word, EPUB, web pages and slides in VS Code (code-server)', () => {
  it('inspects each, reads each with the tools, and opens each citation at its spot in the document view', { timeout: 6 * 60_000 }, async () => {
    const journey = new Journey(`${new Date().toISOString().replace(/[:.]/g, '-')}-formats`);
    const fake = new FakeOpenAIServer({ auto: true });
    let profile: Profile | null = null;
    let server: CodeServer | null = null;
    let browser: Browser | null = null;
    let passed = false;
    try {
      const { workspace, runId, refs } = await journey.step('index the four fixtures and record a run that reads each with list_blocks and cites one block of each', async () => {
        await fake.start();
        profile = makeProfile({ ...QUIET_SETTINGS, 'docqa.chat.baseUrl': fake.baseURL, 'docqa.chat.model': 'fake-chat', 'docqa.embedding.provider': 'none' });
        const ws = path.join(profile.root, 'workspace');
        fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
        for (const c of CASES) fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'formats', c.file), path.join(ws, 'docs', c.file));
        const cli = makeCli({ DOCQA_HOME: path.join(ws, 'docqa-data'), DOCQA_CHAT_BASE_URL: fake.baseURL, DOCQA_CHAT_API_KEY: 'sk-e2e-formats', DOCQA_EMBEDDING_PROVIDER: 'none' });
        cli.json(['sources', 'add', path.join(ws, 'docs'), '--json']);
        assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
        const docs = cli.json<{ documents: Array<{ doc_id: string; title: string; source_label: string }> }>(['tool', 'list_documents', '{}']).documents;
        const files = cli.json<{ documents: Array<{ doc_id: string; path: string }> }>(['sources', 'scan', '--json']).documents;
        const picked = CASES.map((c) => {
          const doc_id = files.find((f) => path.basename(f.path) === c.file)!.doc_id;
          assert.ok(docs.some((d) => d.doc_id === doc_id), `list_documents lists ${c.file}`);
          const blocks = cli.json<{ blocks: Array<{ ref: string; text: string }> }>(['tool', 'list_blocks', JSON.stringify({ doc_id })]).blocks;
          return { doc_id, ref: blocks.find((b) => b.text.includes(c.cite))!.ref };
        });
        fake.scriptChat(...picked.map((p, i) => act('list_blocks', { doc_id: p.doc_id }, i ? `call-${i}` : undefined)), `Thought: enough.\nAction: Finish[Photosynthesis and respiration, from four sources ${picked.map((p) => `【来源:${p.ref}】`).join('')}.]`);
        const r = await cli.runAsync(['ask', 'What do my four documents say about ATP?', '--json', '--trace', 'metadata']);
        assert.equal(r.code, 0, r.stderr);
        const run = (JSON.parse(r.stdout) as { run_id: string }).run_id;
        const release = (await readTrace(new DataDir(path.join(ws, 'docqa-data')), run)).spans.find((s) => s.kind === 'release')!;
        assert.deepEqual(release.attributes.citations, picked.map((p) => p.ref), 'the run kept the four citations');
        return { workspace: ws, runId: run, refs: picked.map((p) => p.ref) };
      });

      server = await journey.step('install the packaged extension and start code-server on 127.0.0.1', async () => {
        await installExtension(profile!, packagedVsix());
        return CodeServer.start(profile!, { disableWorkspaceTrust: true });
      });
      const page = await journey.step('open the workspace', async () => {
        browser = await launchBrowser(path.join(profile!.root, 'browser-home'));
        const p = await openWorkbench(browser, server!.folderUrl(workspace));
        journey.usePage(p);
        return p;
      });

      for (const c of CASES) {
        await journey.step(`"${INSPECT}" on ${c.file} shows the sections the core computes`, async () => {
          const outcome = await ingestFile(path.join(workspace, 'docs', c.file), { doc_id: '(unregistered)', source_label: 'docs', aliases: [] }, DEFAULT_INGEST_OPTIONS);
          assert.ok(outcome.ok, `${c.file} ingests`);
          await runCommand(page, 'View: Close All Editors');
          await openFile(page, c.file);
          await activeTab(page, c.file).waitFor();
          await runCommand(page, INSPECT);
          await activeTab(page, `Inspect: ${c.file}`).waitFor({ timeout: 60_000 });
          const view = await webviewWith(page, 'ul.sections li .title', 60_000);
          await view.locator('h1', { hasText: outcome.document.title }).waitFor();
          assert.deepEqual(await view.locator('ul.sections li .title').allInnerTexts(), outcome.document.sections.map((s) => s.title));
          assert.equal(await view.locator('ol.blocks > li').count(), outcome.document.blocks.length);
        });
      }

      await journey.step('open the run in the trace viewer: the release lists its four citations', async () => {
        await runCommand(page, 'View: Close All Editors');
        await openFile(page, 'trace.json');
        await activeTab(page, 'trace.json').waitFor();
        const view = await webviewWith(page, '[data-testid="span-list"] .span-row', 30_000);
        await view.locator('.span-row[data-kind="release"]').click();
        assert.deepEqual(await view.getByTestId('citation-links').locator('button').allInnerTexts(), refs);
      });

      for (const [i, c] of CASES.entries()) {
        await journey.step(`click the citation into ${c.file}: the document view opens at the cited block, highlighted and in view`, async () => {
          const trace = await webviewWith(page, '[data-testid="citation-links"]');
          await trace.getByTestId('citation-links').locator('button').nth(i).click();
          const tab = page.locator('.tabs-container .tab.active', { hasText: c.tab }).first();
          await tab.waitFor({ timeout: 60_000 });
          // Each document has its panel, and an earlier one can stay open in another group beside this
          // one: the view read is the one whose title heads the active tab's. Until it has drawn, its
          // highlight may be missing, so it is read until it shows the block.
          let seen = { title: '', text: '', inView: false, status: '' };
          await eventually(`the document view of ${c.file} to highlight the block cited`, async () => {
            const tabTitle = (await tab.innerText()).trim();
            for (const doc of await webviewsWith(page, '.document .hl')) {
              // A string, not a function: tsx would compile a function with helpers the page does not have.
              const s = (await doc.locator('.document').evaluate(
                new Function('root', `
                  const hl = [...root.querySelectorAll('.hl')];
                  const box = hl[0].getBoundingClientRect();
                  const bar = document.querySelector('.bar').getBoundingClientRect();
                  return { title: document.querySelector('.doc-title').textContent, text: hl.map((e) => e.textContent).join(''), inView: box.top >= bar.bottom - 1 && box.top < innerHeight && box.width > 0, status: document.querySelector('.status').textContent };
                `) as (root: unknown) => unknown,
              ).catch(() => null)) as typeof seen | null;
              if (s && s.title && tabTitle.startsWith(s.title)) seen = s;
            }
            return c.shows.test(seen.text) && seen.inView;
          }, 60_000, 250).catch(() => undefined);
          assert.match(seen.text, c.shows);
          assert.equal(seen.inView, true, 'the highlighted block is inside the visible view');
          assert.match(seen.status, /the cited text is highlighted/);
          recordTrials({ area: 'end to end', fault: `a citation into ${path.extname(c.file)} opened from the trace viewer`, trials: 1, outcome: 'the document view shows the cited block highlighted, in view' }, __filename);
        });
      }
      assert.ok(runId);
      passed = true;
    } finally {
      await endJourney(journey, { browser, server, profile, passed });
      await fake.close();
    }
  });
});
