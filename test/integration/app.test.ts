import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AskEvent } from '../../src/app/ask';
import type { BuildEvent } from '../../src/app/build-job';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';

/** Agrees to send the sources to the (local fake) embedding host: the confirmation is tested on its own. */
const agree = async () => true;
const KEY = 'sk-app-test-key-424242';

describe('the application layer: one object per data directory, for any host', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    // A tiny automatic agent answers when no reply is scripted (Test Connection's one-token call).
    server = await new FakeOpenAIServer({ apiKey: KEY, auto: true }).start();
  });
  after(() => server.close());

  const settings = (embedding = false) =>
    AppSettings.parse({
      chat: { base_url: server.baseURL, idle_timeout_ms: 2000, total_timeout_ms: 10_000 },
      embedding: embedding ? { provider: 'openai-compatible', base_url: server.baseURL, model: 'fake-embed', dimensions: 16 } : { provider: 'none' },
    });
  const newApp = (o: { embedding?: boolean; keys?: [string | undefined, string | undefined] } = {}) =>
    new DocQaApp({ dataDir: path.join(tempDir('docqa-app-'), 'data'), settings: settings(o.embedding), keys: fixedKeys(...(o.keys ?? [KEY, KEY])), appVersion: 'test' });

  it('keeps source labels unique: two folders of one name get distinct labels; an explicit label already taken is refused', async () => {
    const app = newApp();
    const root = tempDir('docqa-labels-');
    for (const course of ['cs', 'bio', 'chem']) {
      fs.mkdirSync(path.join(root, course, 'essentials'), { recursive: true });
      fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(root, course, 'essentials', 'notes.md'));
    }
    await app.addSources([path.join(root, 'cs', 'essentials'), path.join(root, 'bio', 'essentials')]);
    await app.addSources([path.join(root, 'chem', 'essentials')]);
    assert.deepEqual((await app.listSources()).map((s) => s.label), ['essentials', 'bio/essentials', 'chem/essentials']);
    await assert.rejects(app.addSources([fixture('markdown', 'zh-history.md')], { label: 'Essentials' }), /the label "Essentials" is already used by .*cs.essentials/);
  });

  it('builds in the background with progress (phase, counts, bytes, blocks, ETA), pauses and resumes at a document boundary, and cancels leaving the active snapshot', async () => {
    const app = newApp({ embedding: true });
    const notes = tempDir('docqa-app-notes-');
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(notes, `n${i}.md`), `# Note ${i}\n\nThe keyword marker${i} appears here with shared words about cells.\n`);
    await app.addSources([notes]);
    const events: BuildEvent[] = [];
    const job = await app.startBuild({ onEvent: (e) => events.push(e), confirmEgress: agree });
    const r = await job.done;
    assert.equal(r?.activated, true);
    const progress = events.filter((e): e is Extract<BuildEvent, { type: 'build_progress' }> => e.type === 'build_progress').map((e) => e.status);
    assert.deepEqual([...new Set(progress.map((p) => p.phase))], ['ingest', 'embed', 'index', 'write']);
    const lastIngest = progress.filter((p) => p.phase === 'ingest').at(-1)!;
    assert.deepEqual([lastIngest.done, lastIngest.total, lastIngest.blocks > 0, lastIngest.bytes > 0, lastIngest.eta_ms], [30, 30, true, true, 0]);
    assert.ok(progress.filter((p) => p.phase === 'embed').at(-1)!.embedding_tokens >= 0);
    assert.deepEqual(events.at(-1), { type: 'build_finished', build_id: job.id, snapshot_id: r!.manifest.id, state: 'ready', activated: true, documents: 30, blocks: 30, failed_documents: 0, embedding_tokens: r!.manifest.stats.embedding_tokens });
    assert.equal(await app.leftBuild(), null, 'a finished build leaves nothing behind');

    // Paused from the start: nothing moves until resumed; the pause is recorded for a restart.
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(notes, `n${i}.md`), `# Note ${i}\n\nRevised: marker${i} moved.\n`);
    const paused = await app.startBuild({ paused: true, confirmEgress: agree });
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(paused.status.state, 'paused');
    assert.equal(paused.status.done, 0);
    assert.equal((await app.leftBuild())?.kind, 'paused');
    paused.resume();
    const second = await paused.done;
    assert.equal(second?.manifest.stats.documents, 30);

    // Cancelled mid-way: no new snapshot, the active one stays.
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(notes, `n${i}.md`), `# Note ${i}\n\nAgain: marker${i}.\n`);
    const before = await app.activeSnapshotId();
    const cancelled = await app.startBuild({ paused: true, confirmEgress: agree });
    cancelled.cancel();
    assert.equal(await cancelled.done, null);
    assert.equal(cancelled.status.state, 'cancelled');
    assert.equal(await app.activeSnapshotId(), before);
  });

  it('a build record left by a process that is gone is an interrupted build, resumed by the next build from its durable point', async () => {
    const app = newApp();
    await app.addSources([fixture('markdown', 'cell-notes.md')]);
    fs.mkdirSync(app.dir.root, { recursive: true });
    fs.writeFileSync(path.join(app.dir.root, 'build-state.json'), JSON.stringify({ formatVersion: 1, build_id: 'bdead', state: 'running', started_at: '2026-12-01T00:00:00.000Z', pid: 2 ** 22 + 17, host: (await import('node:os')).hostname() }));
    assert.equal((await app.leftBuild())?.kind, 'interrupted');
    assert.equal((await (await app.startBuild({ confirmEgress: agree })).done)?.activated, true);
    assert.equal(await app.leftBuild(), null);
  });

  it('ask: checks before any request, then one event stream — run_started first (with the run id of the trace), steps, answer, verdict, release', async () => {
    const app = newApp();
    await app.addSources([fixture('markdown', 'cell-notes.md')]);
    await (await app.startBuild({ confirmEgress: agree })).done;
    const before = server.requests.length;
    await assert.rejects(app.ask({ question: '  ' }), /the question is empty/);
    // A remote endpoint (DeepSeek's, the default) without a key: refused before anything is sent.
    const remote = new DocQaApp({ dataDir: app.dir.root, settings: AppSettings.parse({}), keys: fixedKeys(undefined, undefined), appVersion: 'test' });
    await assert.rejects(remote.ask({ question: 'What is a cell?' }), /^UsageError: no chat API key: set DOCQA_CHAT_API_KEY to your key for https:\/\/api\.deepseek\.com \(model deepseek-v4-flash\); nothing was sent$/);
    assert.equal(server.requests.length, before, 'nothing was sent');

    server.scriptChat('Thought: search.\nAction: search_blocks[{"input": {"query": "cell membrane"}}]', 'Thought: done.\nAction: Finish[It controls what enters【来源:{{ref:1}}】.]');
    const events: AskEvent[] = [];
    const run = await app.ask({ question: 'What does the membrane do?' }, { onEvent: (e) => events.push(e) });
    assert.equal(run.result.release.status, 'SUCCESS');
    assert.equal(events[0]!.type, 'run_started');
    assert.equal((events[0] as Extract<AskEvent, { type: 'run_started' }>).run_id, run.run_id);
    const kinds = events.map((e) => e.type).filter((k) => k !== 'model_delta' && k !== 'answer_delta' && k !== 'ledger');
    assert.deepEqual(kinds, ['run_started', 'turn_started', 'tool_requested', 'tool_result', 'turn_started', 'citations', 'release']);
    const step = events.find((e) => e.type === 'tool_requested') as Extract<AskEvent, { type: 'tool_requested' }>;
    assert.deepEqual(step.scope.documents, { count: 1, of: 1, all: true, titles: [] });
    await run.trace;
    assert.deepEqual((await app.listTraces()).map((t) => t.run_id), [run.run_id]);
  });

  it('testConnection: OK with the model the server reported and the latency; a wrong key and a missing key in plain words; keyword-only is no failure', async () => {
    const ok = await newApp({ embedding: true }).testConnection('chat');
    assert.deepEqual([ok.ok, ok.model_reported, ok.called, typeof ok.latency_ms], [true, 'deepseek-v4-flash', 'POST /chat/completions (1 output token)', 'number']);
    assert.match(ok.detail, /^The chat model deepseek-v4-flash at 127\.0\.0\.1:\d+ answered in \d+ ms\.$/);
    const emb = await newApp({ embedding: true }).testConnection('embedding');
    assert.deepEqual([emb.ok, emb.dimensions, emb.model_reported], [true, 16, 'fake-embed']);
    const wrong = await newApp({ embedding: true, keys: ['sk-wrong-one-000', 'sk-wrong-two-000'] }).testConnection('embedding');
    assert.deepEqual([wrong.ok, wrong.failure?.kind, wrong.failure?.status], [false, 'auth', 401]);
    assert.match(wrong.detail, /rejected the API key \(HTTP 401/);
    assert.ok(!JSON.stringify(wrong).includes('sk-wrong-two-000'));
    const remote = new DocQaApp({ dataDir: tempDir(), settings: AppSettings.parse({}), keys: fixedKeys(undefined, undefined), appVersion: 'test' });
    const missing = await remote.testConnection('chat');
    assert.deepEqual([missing.ok, missing.failure?.kind, missing.called], [false, 'missing_key', null]);
    assert.equal(missing.detail, 'The chat model deepseek-v4-flash at api.deepseek.com:443 has no API key. Set the chat API key (DOCQA_CHAT_API_KEY).');
    const none = await remote.testConnection('embedding');
    assert.deepEqual([none.ok, none.skipped], [true, true]);
    // Keyword-only is said as such, with how to change it, in this host's words.
    assert.equal(none.detail, 'Keyword-only search: no embedding endpoint is used, so search matches words, not meaning. To search by meaning, turn embeddings on (provider openai-compatible, with DOCQA_EMBEDDING_BASE_URL and DOCQA_EMBEDDING_MODEL), set DOCQA_EMBEDDING_API_KEY, then rebuild with `docqa index`.');
  });

  it('inspect parses in an ingestion worker, PDFs included (pdf.js is never loaded on the host thread)', async () => {
    const app = newApp();
    const { outcome, registered } = await app.inspect(fixture('pdf', 'photosynthesis-zh.pdf'));
    assert.equal(registered, false);
    assert.ok(outcome.ok === true && outcome.document.blocks.length > 0 && outcome.document.format === 'pdf');
  });
});
