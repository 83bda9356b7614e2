/**
 * The trace viewer in headless Chromium against real traces: each recorded here by `docqa ask` (dist/cli.js)
 * on fixtures against the fake model server, then opened by the extension's own session logic
 * (src/vscode/trace-session.ts) over a DocQaApp of the CLI's data directory. Screenshots in three themes go
 * to test/webview/screenshots/ (git-ignored).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import type { CitationLocation } from '../../src/shared/citation-target';
import type { HostToTraceView } from '../../src/shared/trace-protocol';
import { readTrace } from '../../src/trace/trace-store';
import { type TraceHost, TraceSession } from '../../src/vscode/trace-session';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';
import { makeCli } from '../integration/cli';
import { TracePageServer, type ViewPage } from './lib/trace-page-host';
import { eventually } from '../e2e/lib/wait';
import type { ThemeName } from './lib/trace-themes';

const CHAT_KEY = 'sk-webview-chat-3e1f9a';
const EMBED_KEY = 'emb-webview-key-77c2d0';
const SHOTS = path.join(__dirname, 'screenshots');

const act = (tool: string, input: unknown, prev?: { id: string; gain: string }) => `Thought: next step.\nAction: ${tool}[${JSON.stringify({ input, ...(prev ? { previous_observation: { tool_call_id: prev.id, information_gain: prev.gain } } : {}) })}]`;
const finish = (body: Record<string, unknown>) => {
  const ref = /"ref":"([^"]+)"/.exec(JSON.stringify(body.messages))?.[1];
  return `Thought: enough.\nAction: Finish[The Calvin cycle makes sugar${ref ? `【来源:${ref}】` : ''}.]`;
};

interface Opened {
  view: ViewPage;
  host: { texts: Array<{ title: string; content: string }>; copied: string[]; notes: string[]; opened: string[]; citations: CitationLocation[]; log: string[] };
}

describe('the trace viewer in Chromium, on traces recorded by docqa ask', () => {
  let server: FakeOpenAIServer;
  let pages: TracePageServer;
  let cli: ReturnType<typeof makeCli>;
  let app: DocQaApp;
  const runs: Record<'full' | 'metadata' | 'saturated' | 'budget' | 'failed', string> = { full: '', metadata: '', saturated: '', budget: '', failed: '' };

  const ask = async (question: string, extra: string[] = [], env: Record<string, string> = {}) => {
    const r = await cli.runAsync(['ask', question, '--json', ...extra], env);
    const out = JSON.parse(r.stdout) as { run_id: string };
    assert.ok(out.run_id, r.stderr);
    return out.run_id;
  };

  before(async () => {
    server = await new FakeOpenAIServer().start();
    const docs = tempDir('docqa-webview-docs-');
    fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(docs, 'cells.md'));
    fs.copyFileSync(fixture('pdf', 'photosynthesis-en.pdf'), path.join(docs, 'photosynthesis.pdf'));
    const endpoints = { DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'fake-embed', DOCQA_EMBEDDING_DIMENSIONS: '32', DOCQA_EMBEDDING_API_KEY: EMBED_KEY, DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: CHAT_KEY };
    cli = makeCli(endpoints);
    cli.json(['sources', 'add', docs, '--json']);
    assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);

    // Full mode: a search, the same search again (rejected, and the model rates call-1 GAINED), Finish with a citation.
    server.scriptChat(act('search_blocks', { query: 'Calvin cycle sugar' }), act('search_blocks', { query: 'Calvin cycle sugar' }, { id: 'call-1', gain: 'GAINED' }), finish);
    runs.full = await ask('What does the Calvin cycle make?', ['--trace', 'full']);
    // Metadata mode: one search, Finish.
    server.scriptChat(act('scan_term', { term: 'cell' }), 'Thought: done.\nAction: Finish[Cells.]');
    runs.metadata = await ask('Are cells mentioned?');
    // Saturated: two results the model rates NO_GAIN in a row stop collection (STOP_REQUIRED, then a second request is terminated).
    server.scriptChat(act('search_blocks', { query: 'mitochondria' }), act('search_blocks', { query: 'ribosome' }, { id: 'call-1', gain: 'NO_GAIN' }), act('search_blocks', { query: 'chloroplast' }, { id: 'call-2', gain: 'NO_GAIN' }), act('search_blocks', { query: 'nucleus' }));
    runs.saturated = await ask('What organelles are there?', ['--trace', 'full']);
    // Budget-stopped: one tool call allowed; the second request is refused by the budget.
    server.scriptChat(act('search_blocks', { query: 'Calvin cycle' }), act('scan_term', { term: 'sugar' }, { id: 'call-1', gain: 'GAINED' }), finish);
    runs.budget = await ask('How is sugar made?', [], { DOCQA_MAX_TOOL_CALLS: '1' });
    // Failed: the chat endpoint fails twice (the call and its retry).
    server.inject('/v1/chat/completions', { kind: 'server_error' }, 2);
    runs.failed = await ask('Does this fail?');

    const settings = AppSettings.parse({ chat: { base_url: server.baseURL }, embedding: { provider: 'openai-compatible', base_url: server.baseURL, model: 'fake-embed', dimensions: 32 } });
    app = new DocQaApp({ dataDir: cli.store, settings, keys: fixedKeys(CHAT_KEY, EMBED_KEY), appVersion: '0.0.0-test' });
    pages = await new TracePageServer().start();
    fs.mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await pages?.close();
    await server?.close();
  });

  /** Opens a run in a fresh page, the real session answering the view; resolves once the span list is drawn. */
  async function open(runId: string, o: { theme?: ThemeName; otlp?: string; language?: string } = {}): Promise<Opened> {
    const host: Opened['host'] = { texts: [], copied: [], notes: [], opened: [], citations: [], log: [] };
    let view: ViewPage | null = null;
    const pending: HostToTraceView[] = [];
    const traceHost: TraceHost = {
      post: (m) => (view ? void view.post(m) : void pending.push(m)),
      openText: async (title, content) => void host.texts.push({ title, content }),
      copy: async (text) => void host.copied.push(text),
      notify: (kind, message) => void host.notes.push(`${kind}: ${message}`),
      openTrace: async (id) => void host.opened.push(id),
      openCitation: async (target) => void host.citations.push(target),
      log: (line) => void host.log.push(line),
    };
    const session = new TraceSession(app, runId, traceHost, { language: o.language ?? 'en', otlpEndpoint: () => o.otlp ?? null, fullTraceHint: 'docqa.trace.mode "full"' });
    await session.prepare();
    view = await pages.open({ theme: o.theme, onMessage: (m) => void session.receive(m) });
    for (const m of pending.splice(0)) await view.post(m);
    await view.page.locator('[data-testid="span-list"] .span-row').first().waitFor();
    return { view, host };
  }

  const kinds = (v: ViewPage) => v.page.locator('[data-testid="span-list"] .span-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind')));
  const field = (v: ViewPage, name: string) => v.page.locator(`[data-testid="manifest"] tr[data-field="${name}"] td`).innerText();

  it('a full trace: the span tree in order, the manifest, GAINED rated by the model, artifacts searchable, replay identical', async () => {
    const { view, host } = await open(runs.full);
    try {
      assert.deepEqual(await kinds(view), ['request', 'turn', 'llm_call', 'tool_call', 'budget_decision', 'turn', 'llm_call', 'rejected_request', 'turn', 'llm_call', 'release']);
      assert.equal(await view.page.getByTestId('question').innerText(), 'What does the Calvin cycle make?');
      assert.equal(await view.page.getByTestId('release').innerText(), 'SUCCESS');
      const shown = await app.showTrace(runs.full);
      const m = shown.meta!.manifest;
      assert.equal(await field(view, 'build'), m.app.build);
      assert.equal(await field(view, 'prompt hash'), m.prompt_bundle.hash);
      assert.equal(await field(view, 'config hash'), m.config_hash);
      assert.match(await field(view, 'embedding'), /^fake-embed \(32 dimensions\)$/);
      assert.match(await field(view, 'snapshot'), new RegExp(`^${m.snapshot.id} \\(complete\\)$`));
      assert.match(await field(view, 'prompt bundle'), /^baseline-en /);
      const tool = view.page.locator('.span-row[data-kind="tool_call"]');
      assert.match(await tool.innerText(), /GAINED \(model\)/);

      // The tool call's attributes and its payload artifact; the admission's arithmetic.
      await tool.click();
      const detail = view.page.getByTestId('span-detail');
      assert.match(await detail.getByTestId('attributes').innerText(), /tool_call_id\s+call-1/);
      assert.equal(await detail.locator('details.artifact[data-artifact-kind="tool_payload"]').count(), 1);
      await view.page.locator('.span-row[data-kind="budget_decision"]').click();
      assert.match(await detail.getByTestId('budget-arithmetic').innerText(), /context \d+ \+ result \d+ \+ reserve 4000 = \d+ ≤ max_context_tokens 100000 fits/);
      // The first turn's prompt artifact is the exact prompt, and search finds the question in it.
      await view.page.locator('.span-row[data-kind="llm_call"]').first().click();
      const prompt = detail.locator('details.artifact[data-artifact-kind="prompt"]');
      assert.equal(await prompt.count(), 1);
      await prompt.locator('summary').click();
      assert.equal(await prompt.locator('pre').innerText(), JSON.stringify(await app.promptOfTurn(runs.full, 1)));
      await detail.getByRole('searchbox').fill('Calvin cycle');
      assert.ok((await detail.getByTestId('artifact-hits').locator('li').count()) >= 3);
      assert.ok((await prompt.locator('mark').count()) >= 1);

      // Replay: every call identical on the snapshot the run used.
      await view.page.getByTestId('replay').click();
      const replay = view.page.getByTestId('replay-result');
      await replay.waitFor();
      assert.match(await replay.innerText(), /All 1 results identical\./);
      assert.deepEqual(await replay.locator('.replay-call').evaluateAll((r) => r.map((x) => x.getAttribute('data-verdict'))), ['identical']);

      // Show prompt of turn 2 opens exactly what the model was sent; copy run id.
      await view.page.locator('select').selectOption('2');
      await view.page.getByTestId('show-prompt').click();
      await view.page.getByTestId('copy-run-id').click();
      // Both are answered asynchronously (the prompt is read from disk): wait for both.
      for (let i = 0; i < 250 && (host.copied.length === 0 || host.texts.length === 0); i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(host.texts.length, 1);
      assert.equal(host.texts[0]!.title, `prompt-${runs.full}-turn-2.txt`);
      assert.match(host.texts[0]!.content, /^----- system -----\n/);
      assert.match(host.texts[0]!.content, /----- user -----\nWhat does the Calvin cycle make\?\n$/);
      assert.deepEqual(host.copied, [runs.full]);
      assert.equal(await view.page.getByTestId('export').count(), 0, 'no export without an endpoint');
      assert.deepEqual(view.problems, []);
      for (const theme of ['light', 'dark', 'high-contrast'] as const) {
        const themed = await open(runs.full, { theme });
        await themed.view.page.locator('.span-row[data-kind="tool_call"]').click();
        await themed.view.page.screenshot({ path: path.join(SHOTS, `trace-full-${theme}.png`), fullPage: true });
        await themed.view.close();
      }
    } finally {
      await view.close();
    }
  });

  it("the release's citations open at their spot: looked up in the run's snapshot and handed to docqa.openCitation", async () => {
    // A run whose answer cites the first block its search returned (the same search, run as a tool first).
    // (Asynchronously: the fake server answering the query's embedding runs in this process.)
    const found = await cli.runAsync(['tool', 'search_blocks', JSON.stringify({ query: 'Calvin cycle sugar' })]);
    const hit = (JSON.parse(found.stdout) as { blocks: Array<{ ref: string }> }).blocks[0]!;
    server.scriptChat(act('search_blocks', { query: 'Calvin cycle sugar' }), `Thought: enough.\nAction: Finish[The Calvin cycle makes sugar【来源:${hit.ref}】.]`);
    const runId = await ask('What does the Calvin cycle make, with a source?');
    const { view, host } = await open(runId);
    try {
      const shown = await readTrace(app.dir, runId);
      const release = shown.spans.find((sp) => sp.kind === 'release')!;
      const refs = release.attributes.citations as string[];
      assert.equal(refs.length, 1, 'the run kept one citation');
      await view.page.locator('.span-row[data-kind="release"]').click();
      const link = view.page.getByTestId('citation-links').getByRole('button', { name: refs[0] });
      await link.click();
      await eventually('the citation to open', () => host.citations.length === 1, 10_000, 20);
      const [doc_id, block_id] = refs[0]!.split('#') as [string, string];
      const b = await app.block({ doc_id, block_id, snapshot_id: shown.meta!.manifest.snapshot.id });
      assert.ok(b.found);
      assert.deepEqual(host.citations[0], { path: b.path, location: b.location, text: b.text, title: b.doc_title, content_hash: b.content_hash });
      assert.deepEqual(host.notes, []);
    } finally {
      await view.close();
    }
  });

  it('bidi controls in the question and in the artifacts show as visible tags, never as raw reordering characters', async () => {
    server.scriptChat(act('scan_term', { term: 'cell' }), 'Thought: done.\nAction: Finish[Cells.]');
    const runId = await ask('Is \u202eevil\u202c about cells?', ['--trace', 'full']);
    const { view } = await open(runId);
    try {
      assert.equal(await view.page.getByTestId('question').innerText(), 'Is ‹U+202E›evil‹U+202C› about cells?');
      await view.page.locator('.span-row[data-kind="llm_call"]').first().click();
      const prompt = view.page.getByTestId('span-detail').locator('details.artifact[data-artifact-kind="prompt"]');
      await prompt.locator('summary').click();
      assert.match(await prompt.locator('pre').innerText(), /Is ‹U\+202E›evil‹U\+202C› about cells\?/);
      assert.doesNotMatch(await view.page.locator('body').innerText(), /[\u202a-\u202e\u2066-\u2069]/);
    } finally {
      await view.close();
    }
  });

  it('a metadata trace has no artifacts and says how to get them; a turn’s prompt is refused with the reason', async () => {
    const { view, host } = await open(runs.metadata);
    try {
      assert.deepEqual(await kinds(view), ['request', 'turn', 'llm_call', 'tool_call', 'budget_decision', 'turn', 'llm_call', 'release']);
      assert.equal(await view.page.getByTestId('artifacts').count(), 0);
      assert.match(await view.page.getByTestId('no-artifacts').innerText(), /metadata trace keeps no prompts/);
      await view.page.getByTestId('show-prompt').click();
      for (let i = 0; i < 250 && host.notes.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(host.texts.length, 0);
      assert.match(host.notes[0]!, /^error: run \S+ was traced in metadata mode, which keeps no prompts; ask again with docqa\.trace\.mode "full"/);
    } finally {
      await view.close();
    }
  });

  it('a saturated run shows NO_GAIN rated by the model twice, the STOP_REQUIRED refusal and the stop reason', async () => {
    const { view } = await open(runs.saturated);
    try {
      assert.equal(await view.page.getByTestId('stop-reason').innerText(), 'INFORMATION_SATURATED');
      assert.equal(await view.page.getByTestId('release').innerText(), 'FALLBACK');
      const tools = view.page.locator('.span-row[data-kind="tool_call"]');
      assert.equal(await tools.count(), 2);
      // call-1 is rated by the next tool request, call-2 by the request that was refused.
      assert.match(await tools.nth(0).innerText(), /NO_GAIN \(model\)/);
      assert.match(await tools.nth(1).innerText(), /NO_GAIN \(model\)/);
      const rejected = view.page.locator('.span-row[data-kind="rejected_request"]');
      assert.equal(await rejected.count(), 2);
      assert.match(await rejected.nth(0).innerText(), /stop INFORMATION_SATURATED/);
      await rejected.nth(0).click();
      assert.match(await view.page.getByTestId('attributes').innerText(), /reason\s+stop_required/);
      assert.match(await view.page.locator('.span-row[data-kind="release"]').innerText(), /stop INFORMATION_SATURATED/);
    } finally {
      await view.close();
    }
  });

  it('a budget-stopped run shows the refused request and BUDGET_LIMIT_REACHED; the budget in the manifest', async () => {
    const { view } = await open(runs.budget);
    try {
      assert.equal(await view.page.getByTestId('stop-reason').innerText(), 'BUDGET_LIMIT_REACHED');
      assert.match(await field(view, 'budgets'), /tool calls 1$/);
      assert.equal(await view.page.locator('.span-row[data-kind="tool_call"]').count(), 1);
      assert.match(await view.page.locator('.span-row[data-kind="rejected_request"]').first().innerText(), /rejected/);
    } finally {
      await view.close();
    }
  });

  it('a failed run shows the failed calls, the retry and FAILED, in Chinese when VS Code is in Chinese', async () => {
    const { view } = await open(runs.failed, { language: 'zh-cn', theme: 'light' });
    try {
      assert.equal(await view.page.getByTestId('release').innerText(), 'FAILED');
      assert.deepEqual(await kinds(view), ['request', 'turn', 'llm_call', 'retry', 'llm_call', 'release']);
      assert.equal(await view.page.locator('.span-row.status-error[data-kind="llm_call"]').count(), 2);
      assert.equal(await view.page.getByTestId('replay').innerText(), '重放检索');
      await view.page.getByTestId('replay').click();
      await view.page.getByTestId('replay-result').waitFor();
      assert.match(await view.page.getByTestId('replay-result').innerText(), /这次运行没有调用工具/);
      await view.page.screenshot({ path: path.join(SHOTS, 'trace-failed-zh-light.png'), fullPage: true });
    } finally {
      await view.close();
    }
  });

  it('a trace of 1,000 spans keeps only the rows in view in the DOM, scrolls to its last span, and moves by keyboard', async () => {
    const base = await app.showTrace(runs.metadata);
    const big = path.join(cli.store, 'traces', 'r20261201T000000000Z-000001');
    fs.mkdirSync(big, { recursive: true });
    const hex = (i: number) => i.toString(16).padStart(16, '0');
    const lines = [JSON.stringify({ type: 'span', span_id: hex(1), parent_id: null, kind: 'request', name: 'request', start_ms: 0, end_ms: 10_000, status: 'ok', attributes: {} })];
    for (let i = 2; i <= 1000; i++) lines.push(JSON.stringify({ type: 'span', span_id: hex(i), parent_id: hex(1), kind: 'tool_call', name: `tool ${i}`, start_ms: i * 10, end_ms: i * 10 + 5, status: 'ok', attributes: { tool_call_id: `call-${i}` } }));
    fs.writeFileSync(path.join(big, 'records.jsonl'), `${lines.join('\n')}\n`);
    fs.writeFileSync(path.join(big, 'trace.json'), JSON.stringify({ ...base.meta, run_id: 'r20261201T000000000Z-000001' }));
    const { view } = await open('r20261201T000000000Z-000001');
    try {
      const list = view.page.getByTestId('span-list');
      assert.equal(await list.getAttribute('data-rows'), '1000');
      const inDom = await list.locator('.span-row').count();
      assert.ok(inDom > 10 && inDom < 100, `${inDom} rows in the DOM`);
      await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
      await view.page.locator('.span-row', { hasText: 'tool 1000' }).waitFor();
      assert.ok((await list.locator('.span-row').count()) < 100);
      // Keyboard: Home selects the first span, ArrowDown the next, End the last (scrolled into view).
      await list.focus();
      await view.page.keyboard.press('Home');
      await view.page.keyboard.press('ArrowDown');
      assert.equal(await list.getAttribute('aria-activedescendant'), `span-${hex(2)}`);
      await view.page.keyboard.press('End');
      assert.equal(await list.getAttribute('aria-activedescendant'), `span-${hex(1000)}`);
      await view.page.locator(`#span-${hex(1000)}`).waitFor();
      // ArrowLeft from a child goes to its parent; ArrowLeft again collapses it to one row.
      await view.page.keyboard.press('ArrowLeft');
      await view.page.keyboard.press('ArrowLeft');
      assert.equal(await list.getAttribute('data-rows'), '1');
    } finally {
      await view.close();
    }
  });

  it('exports to an OTLP collector when an endpoint is configured, and shows a failure with its code', async () => {
    const bodies: string[] = [];
    const collector = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { view } = await open(runs.metadata, { otlp: `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces` });
    const down = await open(runs.metadata, { otlp: 'http://127.0.0.1:9/v1/traces' });
    try {
      await view.page.getByTestId('export').click();
      await view.page.getByText('exported 8 spans').waitFor();
      assert.equal(bodies.length, 1);
      assert.equal(JSON.parse(bodies[0]!).resourceSpans[0].scopeSpans[0].spans.length, 8);
      await down.view.page.getByTestId('export').click();
      assert.match(await down.view.page.getByTestId('action-error').innerText(), /^\S+: .*did not accept the trace/);
    } finally {
      await view.close();
      await down.view.close();
      collector.close();
    }
  });

  it('drops and logs messages that do not match the protocol, both ways', async () => {
    const { view, host } = await open(runs.metadata);
    try {
      await view.post({ type: 'show-trace', language: 'en', otlp: true, trace: { run_id: 'x' } });
      await view.post({ type: 'no-such-message' });
      await view.page.waitForFunction(() => true);
      assert.equal(await view.page.getByTestId('question').innerText(), 'Are cells mentioned?', 'the invalid trace did not replace the shown one');
      assert.equal(view.problems.filter((p) => p.includes('dropped a message that does not match the protocol')).length, 2);
      const session = new TraceSession(app, runs.metadata, { post: () => assert.fail('nothing is posted for an invalid message'), openText: async () => {}, copy: async () => {}, notify: () => {}, openTrace: async () => {}, log: (l) => void host.log.push(l) }, { language: 'en', otlpEndpoint: () => null, fullTraceHint: '' });
      await session.receive({ type: 'show-prompt', turn: 0 });
      await session.receive({ type: 'replay' });
      assert.equal(host.log.filter((l) => l.startsWith('trace view: dropped an invalid message')).length, 2);
    } finally {
      await view.close();
    }
  });
});
