/**
 * The evaluation result and comparison tabs in headless Chromium, on evaluations recorded here by
 * `docqa eval run` against the fake model server, shown through the extension's session logic.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import type { HostToTraceView } from '../../src/shared/trace-protocol';
import { TraceSession } from '../../src/vscode/trace-session';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';
import { makeCli } from '../integration/cli';
import { TracePageServer, type ViewPage } from './lib/trace-page-host';

const finish = (text: string) => `Thought: done.\nAction: Finish[${text}]`;

describe('evaluation tabs in Chromium, on evaluations recorded by docqa eval run', () => {
  let server: FakeOpenAIServer;
  let pages: TracePageServer;
  let app: DocQaApp;
  const evals: string[] = [];

  before(async () => {
    server = await new FakeOpenAIServer().start();
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: 'sk-webview-eval-000000' });
    cli.json(['sources', 'add', fixture('pdf', 'photosynthesis-en.pdf'), '--json']);
    assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
    const gold = path.join(tempDir('docqa-webview-gold-'), 'gold.jsonl');
    fs.writeFileSync(gold, [{ id: 'calvin', question: 'What makes sugar?', expect: { status: 'SUCCESS', contains: ['Calvin'] } }, { id: 'pigment', question: 'Which pigment absorbs light?', expect: { status: 'SUCCESS', contains: ['chlorophyll'] } }].map((c) => JSON.stringify(c)).join('\n'));
    assert.equal(cli.run(['prompts', 'new', '--from', 'baseline-en']).code, 0);
    // First: calvin passes twice, pigment once (it flips), with the experimental bundle.
    server.scriptChat(finish('The Calvin cycle.'), finish('The Calvin cycle.'), finish('Chlorophyll.'), finish('I am not sure.'));
    const a = JSON.parse((await cli.runAsync(['eval', 'run', gold, '--repeat', '2', '--prompt', 'baseline-en-exp1', '--json'])).stdout) as { eval_id: string };
    // Then: both pass every time, with the baseline.
    server.scriptChat(finish('The Calvin cycle.'), finish('The Calvin cycle.'), finish('Chlorophyll.'), finish('Chlorophyll a.'));
    const b = JSON.parse((await cli.runAsync(['eval', 'run', gold, '--repeat', '2', '--json'])).stdout) as { eval_id: string };
    evals.push(a.eval_id, b.eval_id);
    app = new DocQaApp({ dataDir: cli.store, settings: AppSettings.parse({}), keys: fixedKeys(undefined, undefined), appVersion: '0.0.0-test' });
    pages = await new TracePageServer().start();
  });

  after(async () => {
    await pages?.close();
    await server?.close();
  });

  async function show(shown: HostToTraceView, opened: string[] = []): Promise<ViewPage> {
    let view: ViewPage | null = null;
    const session = new TraceSession(app, null, { post: (m) => void view?.post(m), openText: async () => {}, copy: async () => {}, notify: () => {}, openTrace: async (id) => void opened.push(id), log: () => {} }, { language: 'en', otlpEndpoint: () => null, fullTraceHint: '' });
    view = await pages.open({ onMessage: (m) => void session.receive(m) });
    await session.prepare(shown);
    await view.page.getByTestId('pass-rate').waitFor();
    return view;
  }

  it('the result tab shows the pass rate, PASS / FLIP per case with the failure, and opens a run’s trace', async () => {
    const record = await app.loadEval(evals[0]!);
    const opened: string[] = [];
    const view = await show({ type: 'show-eval', language: 'en', record }, opened);
    try {
      assert.equal(await view.page.getByTestId('pass-rate').innerText(), 'pass rate 3/4 (75.0%)');
      const verdicts = await view.page.locator('tr[data-case]').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-case')} ${r.getAttribute('data-verdict')}`));
      assert.deepEqual(verdicts, ['calvin PASS', 'pigment FLIP']);
      assert.match(await view.page.locator('tr[data-case="pigment"]').innerText(), /1\/2\s+missing_text: /);
      assert.match(await view.page.getByText(/^failures: /).innerText(), /missing_text 1/);
      await view.page.locator('tr[data-case="pigment"] button').nth(1).click();
      for (let i = 0; i < 100 && !opened.length; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(opened, [record.cases[1]!.runs[1]!.run_id]);
      assert.deepEqual(view.problems, []);
    } finally {
      await view.close();
    }
  });

  it('run actions asked of a tab that shows no single run are refused with a code, never thrown', async () => {
    const posted: HostToTraceView[] = [];
    const notes: string[] = [];
    const session = new TraceSession(app, null, { post: (m) => void posted.push(m), openText: async () => assert.fail('no prompt to open'), copy: async () => assert.fail('no run id to copy'), notify: (k, m) => void notes.push(`${k}: ${m}`), openTrace: async () => {}, log: () => {} }, { language: 'en', otlpEndpoint: () => null, fullTraceHint: '' });
    await session.receive({ type: 'replay', id: 7 });
    await session.receive({ type: 'copy-run-id' });
    await session.receive({ type: 'show-prompt', turn: 1 });
    assert.deepEqual(posted, [{ type: 'request-failed', id: 7, code: 'invalid_argument', message: 'this view shows no single run' }]);
    assert.deepEqual(notes, ['error: this view shows no single run', 'error: this view shows no single run']);
  });

  it('the comparison tab shows the case that moved and the manifest fields that differ', async () => {
    const diff = await app.diffEvals(evals[0]!, evals[1]!);
    const view = await show({ type: 'show-eval-diff', language: 'zh-cn', diff });
    try {
      assert.equal(await view.page.getByTestId('pass-rate').innerText(), '通过率 75.0% → 100.0% (+25.0 个百分点)');
      assert.deepEqual(await view.page.locator('tr[data-case]').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-case')} ${r.getAttribute('data-change')}`)), ['pigment improved']);
      assert.match(await view.page.getByTestId('manifest-changes').innerText(), /prompt_bundle\.id\s+"baseline-en-exp1" → "baseline-en"/);
    } finally {
      await view.close();
    }
  });
});
