import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';
import { CLI, makeCli } from './cli';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const CHAT_KEY = 'sk-planted-chat-7f3a9c2e51d4b8';
const EMBED_KEY = 'emb-planted-key-4c1d9e7a2b6f';

interface Manifest {
  app: { name: string; build: string };
  prompt_bundle: { id: string; hash: string };
  embedding: unknown;
  snapshot: unknown;
  budgets: unknown;
  thresholds: unknown;
  chat: { thinking: string };
  config_hash: string;
}

interface SpanNode {
  span_id: string;
  parent_id: string | null;
  kind: string;
  name: string;
  start_ms: number;
  end_ms: number;
  status: string;
  attributes: Record<string, unknown>;
  children: SpanNode[];
}

/** The tree as "kind" / nested lists, for an exact shape comparison. */
const shape = (n: SpanNode): unknown => (n.children.length ? [n.kind, n.children.map(shape)] : n.kind);

/** Children lie inside their parent and never overlap each other; parents are set correctly. */
function assertWellFormed(n: SpanNode): void {
  let prevEnd = n.start_ms;
  for (const c of n.children) {
    assert.equal(c.parent_id, n.span_id);
    assert.ok(c.start_ms >= prevEnd, `${c.name} starts before its previous sibling ends`);
    assert.ok(c.end_ms >= c.start_ms && c.end_ms <= n.end_ms, `${c.name} ends outside ${n.name}`);
    prevEnd = c.end_ms;
    assertWellFormed(c);
  }
}

const act = (tool: string, input: unknown, prev?: { id: string; gain: string }) =>
  `Thought: next step.\nAction: ${tool}[${JSON.stringify({ input, ...(prev ? { previous_observation: { tool_call_id: prev.id, information_gain: prev.gain } } : {}) })}]`;

/** Every file under a folder, as text (binary index files included: a key must not be in them either). */
function filesUnder(dir: string): Array<[string, Buffer]> {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).map((f) => path.join(dir, f)).filter((p) => fs.statSync(p).isFile()).map((p) => [p, fs.readFileSync(p)]);
}

describe('traces, manifests, replay and export', () => {
  let server: FakeOpenAIServer;
  let cli: ReturnType<typeof makeCli>;
  let docs: string;
  before(async () => {
    server = await new FakeOpenAIServer().start();
    docs = tempDir('docqa-trace-docs-');
    fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(docs, 'cells.md'));
    fs.copyFileSync(fixture('pdf', 'photosynthesis-en.pdf'), path.join(docs, 'photosynthesis.pdf'));
    cli = makeCli({
      DOCQA_EMBEDDING_BASE_URL: server.baseURL,
      DOCQA_EMBEDDING_MODEL: 'fake-embed',
      DOCQA_EMBEDDING_DIMENSIONS: '32',
      DOCQA_EMBEDDING_API_KEY: EMBED_KEY,
      DOCQA_CHAT_BASE_URL: server.baseURL,
      DOCQA_CHAT_API_KEY: CHAT_KEY,
    });
    cli.json(['sources', 'add', docs, '--json']);
    const r = await cli.runAsync(['index', '--yes']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    assert.deepEqual(server.scriptErrors, []);
    await server.close();
  });

  let runId = '';
  let snapshotA = '';

  it('a scripted run leaves exactly the expected span tree, its manifest, and the exact prompts in full mode', async () => {
    const sent: string[] = [];
    server.scriptChat(
      (body) => {
        sent.push(JSON.stringify(body.messages));
        return act('search_blocks', { query: 'Calvin cycle sugar' });
      },
      (body) => {
        sent.push(JSON.stringify(body.messages));
        return act('search_blocks', { query: 'Calvin cycle sugar' }, { id: 'call-1', gain: 'GAINED' }); // duplicate scope: rejected
      },
      (body) => {
        sent.push(JSON.stringify(body.messages));
        const system = (body.messages as Array<{ content: string }>)[0]!.content;
        const ref = /"ref":"([^"]+)"/.exec(system)![1]!;
        return `Thought: enough.\nAction: Finish[The Calvin cycle makes sugar【来源:${ref}】.]`;
      },
    );
    const r = await cli.runAsync(['ask', 'What does the Calvin cycle make?', '--json', '--trace', 'full']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { run_id: string; snapshot_id: string; release: { status: string }; trace: { partial: boolean; mode: string } };
    assert.equal(out.release.status, 'SUCCESS');
    assert.deepEqual(out.trace, { mode: 'full', partial: false, records_dropped: 0, writer_error: null });
    runId = out.run_id;
    snapshotA = out.snapshot_id;

    const shown = cli.json<{ meta: { manifest: Manifest; partial: boolean; counts: Record<string, number> }; spans: SpanNode[] }>(['trace', 'show', runId, '--json']);
    assert.equal(shown.spans.length, 1);
    const root = shown.spans[0]!;
    assert.deepEqual(shape(root), [
      'request',
      [
        ['turn', ['llm_call', ['tool_call', ['budget_decision']]]],
        ['turn', ['llm_call', 'rejected_request']],
        ['turn', ['llm_call']],
        'release',
      ],
    ]);
    assertWellFormed(root);
    const tool = root.children[0]!.children[1]!;
    assert.equal(tool.attributes.tool, 'search_blocks');
    assert.deepEqual(tool.attributes.input, { query: 'Calvin cycle sugar' });
    const search = tool.attributes.search as { mode: string; hits: Array<{ ref: string; fused: number; bm25_rank: number | null }> };
    assert.equal(search.mode, 'hybrid');
    assert.deepEqual(search.hits.map((h) => h.ref), tool.attributes.refs, 'ranks and scores for every returned block');
    assert.equal(root.children[1]!.children[1]!.attributes.reason, 'duplicate_scope');
    assert.equal(root.children[1]!.children[1]!.attributes.information_gain, 'GAINED');
    assert.equal(root.children[3]!.attributes.status, 'SUCCESS');
    assert.equal(root.attributes.rejected_requests, 1);

    const m = shown.meta.manifest;
    assert.equal(m.app.name, 'docqa');
    assert.match(m.app.build, /^[0-9a-f]{16}$/, 'the bundled build records its source hash');
    assert.equal(m.prompt_bundle.id, 'baseline-en');
    assert.match(m.prompt_bundle.hash, /^[0-9a-f]{64}$/);
    assert.deepEqual(m.embedding, { provider: 'openai-compatible', model: 'fake-embed', dimensions: 32 });
    assert.deepEqual(m.snapshot, { id: snapshotA, completeness: 'complete', failed_documents: 0 });
    assert.deepEqual(m.budgets, { max_context_tokens: 100000, max_request_tokens: 400000, finalization_reserve_tokens: 4000, max_tool_calls: 8 });
    assert.deepEqual(m.thresholds, { no_gain: 2, violations: 2 });
    assert.equal(m.chat.thinking, 'disabled');
    assert.match(m.config_hash, /^[0-9a-f]{64}$/);

    // `trace prompt` prints exactly the messages the model received in that turn.
    for (const k of [1, 2, 3]) assert.equal(JSON.stringify(cli.json(['trace', 'prompt', runId, '--turn', String(k), '--json'])), sent[k - 1]);
    const text = cli.run(['trace', 'show', runId]);
    assert.match(text.stdout, /^request {2}\d/m);
    assert.match(text.stdout, /^ {4}tool_call|^ {4}search_blocks/m);
    assert.match(text.stdout, /rejected search_blocks \[error\].*duplicate_scope/);
    assert.match(cli.run(['trace', 'list']).stdout, new RegExp(`^${runId}  SUCCESS +full`, 'm'));
    const turn9 = cli.run(['trace', 'prompt', runId, '--turn', '9']);
    assert.equal(turn9.code, 1);
    assert.match(turn9.stderr, /has turns 1–3, not 9/);
  });

  it('metadata mode keeps no content; `trace prompt` says so', async () => {
    server.scriptChat('Thought: simple.\nAction: Finish[Cells are small.]');
    const out = JSON.parse((await cli.runAsync(['ask', 'Are cells small?', '--json'])).stdout) as { run_id: string };
    const files = filesUnder(path.join(cli.store, 'traces', out.run_id));
    assert.ok(files.every(([, b]) => !b.includes('Cells are small')), 'no answer text in a metadata trace');
    const p = cli.run(['trace', 'prompt', out.run_id, '--turn', '1']);
    assert.equal(p.code, 1);
    assert.match(p.stderr, /metadata mode, which keeps no prompts/);
  });

  it('after a newer snapshot is activated, replaying the old trace reproduces its blocks exactly; once deleted, replay says so', async () => {
    fs.appendFileSync(path.join(docs, 'cells.md'), '\n\n## Calvin\n\nThe Calvin cycle in these notes fixes carbon dioxide into sugar.\n');
    assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
    const active = cli.json<Array<{ id: string; active: boolean }>>(['snapshots', '--json']).find((s) => s.active)!;
    assert.notEqual(active.id, snapshotA);
    const replay = JSON.parse((await cli.runAsync(['trace', 'replay', runId, '--json'])).stdout) as { snapshot_id: string; identical: boolean; calls: Array<{ identical: boolean; replayed: { refs: string[] }; recorded: { refs: string[] } }> };
    assert.equal(replay.snapshot_id, snapshotA);
    assert.equal(replay.calls.length, 1);
    assert.ok(replay.identical);
    assert.deepEqual(replay.calls[0]!.replayed.refs, replay.calls[0]!.recorded.refs);
    // The same search on the new snapshot does find the new block: the old trace was not replayed there by accident.
    const fresh = JSON.parse((await cli.runAsync(['tool', 'search_blocks', '{"query": "Calvin cycle sugar"}'])).stdout) as { blocks: Array<{ text: string }> };
    assert.ok(fresh.blocks.some((b) => b.text.includes('fixes carbon dioxide')));
    // Without the embedding endpoint the search cannot be re-run: said so, not reported as a changed result.
    const noEmbed = await cli.runAsync(['trace', 'replay', runId], { DOCQA_EMBEDDING_BASE_URL: '', DOCQA_EMBEDDING_MODEL: '' });
    assert.match(noEmbed.stdout, /call-1 search_blocks .*: NOT RE-RUN \(upstream_unavailable: /);
    assert.match(noEmbed.stdout, /1 call\(s\) could not be re-run/);
    assert.doesNotMatch(noEmbed.stdout, /changed/);
    assert.equal(cli.run(['snapshots', 'delete', snapshotA]).code, 0);
    const gone = await cli.runAsync(['trace', 'replay', runId]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, new RegExp(`used snapshot ${snapshotA}, which has been deleted`));
  });

  it('the OTLP export reaches a collector on 127.0.0.1 with every span', async () => {
    const bodies: Array<{ contentType: string; body: Buffer }> = [];
    const collector = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push({ contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
      const r = await cli.runAsync(['trace', 'export', runId, '--otlp', url]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /exported 11 spans/);
      assert.equal(bodies.length, 1);
      assert.match(bodies[0]!.contentType, /json/);
      const payload = JSON.parse(bodies[0]!.body.toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; parentSpanId?: string; traceId: string }> }> }> };
      const spans = payload.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
      assert.equal(spans.length, 11);
      assert.equal(new Set(spans.map((s) => s.traceId)).size, 1);
      assert.equal(spans.filter((s) => !s.parentSpanId).length, 1, 'one root');
      const down = await cli.runAsync(['trace', 'export', runId, '--otlp', 'http://127.0.0.1:9/v1/traces']);
      assert.equal(down.code, 1);
      // Said at once: the exporter alone retried a refused connection for about 8 s before it said so.
      assert.match(down.stderr, /did not accept the trace: nothing is listening there \(ECONNREFUSED\)/);
    } finally {
      collector.close();
    }
  });

  it('planted keys (both) appear nowhere under the data directory or in any output after a full-mode run with errors', async () => {
    const outputs: string[] = [];
    // A user pastes both keys into a question; the model echoes them; the chat endpoint fails once with
    // its error echoing the key; the query embedding is refused once (the key echoed in its body).
    server.inject('/v1/chat/completions', { kind: 'unauthorized' });
    const first = await cli.runAsync(['ask', `Is ${CHAT_KEY} or ${EMBED_KEY} my key?`, '--json', '--trace', 'full']);
    outputs.push(first.stdout, first.stderr);
    assert.equal(first.code, 1, 'a rejected key fails closed');
    server.inject('/v1/chat/completions', { kind: 'server_error' });
    server.inject('/v1/embeddings', { kind: 'unauthorized' });
    // After the refused search, the model reads a document whole, so its answer cites a verified block
    // (an uncited answer after a failed search is not released).
    const firstDocId = (body: Record<string, unknown>) => {
      const lines = (body.messages as Array<{ content: string }>)[0]!.content.split('\n').filter((l) => l.startsWith('Observation: '));
      return (JSON.parse(lines.at(-1)!.slice('Observation: '.length)) as { payload: { documents: Array<{ doc_id: string }> } }).payload.documents[0]!.doc_id;
    };
    server.scriptChat(
      act('search_blocks', { query: `key ${EMBED_KEY}` }),
      act('list_documents', {}),
      (body) => act('list_blocks', { doc_id: firstDocId(body) }, { id: 'call-2', gain: 'GAINED' }),
      `Thought: echo.\nAction: Finish[Your keys are ${CHAT_KEY} and ${EMBED_KEY}; Authorization: Bearer ${CHAT_KEY}【来源:{{ref:1}}】]`,
    );
    const r = await cli.runAsync(['ask', `Is ${CHAT_KEY} or ${EMBED_KEY} my key?`, '--json', '--trace', 'full']);
    outputs.push(r.stdout, r.stderr);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { run_id: string; answer: string; counts: { model_calls: number } };
    assert.equal(out.counts.model_calls, 5, 'the failed chat attempt was retried');
    assert.match(out.answer, /Your keys are \[REDACTED\] and \[REDACTED\]/);
    assert.match(out.answer, /\(Note: a search could not run, so this answer may miss something: The embedding model fake-embed at 127\.0\.0\.1:\d+ rejected the API key/);
    const shown = cli.run(['trace', 'show', out.run_id]);
    const prompt = cli.run(['trace', 'prompt', out.run_id, '--turn', '2']);
    const listed = cli.run(['trace', 'list', '--json']);
    outputs.push(shown.stdout, shown.stderr, prompt.stdout, prompt.stderr, listed.stdout);
    assert.match(prompt.stdout, /Is \[REDACTED\] or \[REDACTED\] my key\?/);
    // The trace has the retry and the refused embedding in it: the errors were recorded, redacted.
    assert.match(shown.stdout, /retry llm_call/);
    for (const o of outputs) for (const key of [CHAT_KEY, EMBED_KEY]) assert.ok(!o.includes(key), `output contains ${key.slice(0, 12)}…`);
    for (const [file, bytes] of filesUnder(cli.store)) for (const key of [CHAT_KEY, EMBED_KEY]) assert.ok(!bytes.includes(key), `${file} contains ${key.slice(0, 12)}…`);
  });

  it('a run that died mid-way (records but no trace.json, a torn last line) still lists and shows what it wrote', async () => {
    server.scriptChat(act('scan_term', { term: 'cell' }), 'Thought: done.\nAction: Finish[Cells.]');
    const out = JSON.parse((await cli.runAsync(['ask', 'Cells?', '--json'])).stdout) as { run_id: string };
    const folder = path.join(cli.store, 'traces', out.run_id);
    fs.rmSync(path.join(folder, 'trace.json'));
    fs.appendFileSync(path.join(folder, 'records.jsonl'), '{"type":"span","span_id":"ab');
    const listed = cli.json<Array<{ run_id: string; partial: boolean; question: string | null }>>(['trace', 'list', '--json']).find((r) => r.run_id === out.run_id)!;
    assert.deepEqual([listed.partial, listed.question], [true, null]);
    const shown = cli.run(['trace', 'show', out.run_id]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /INCOMPLETE: trace\.json was never written/);
    assert.match(shown.stdout, /\(1 unreadable record lines skipped\)/);
    assert.match(shown.stdout, /^ {4}scan_term {2}/m);
  });

  it('a run killed before its first record (an empty folder) lists and shows as incomplete; an unknown run stays not found', async () => {
    // The crash loop found it: SIGKILL between the folder's mkdir and the first write; list showed it, show said not found.
    const runId = 'r20261203T044630890Z-f4202a';
    fs.mkdirSync(path.join(cli.store, 'traces', runId), { recursive: true });
    const listed = cli.json<Array<{ run_id: string; partial: boolean }>>(['trace', 'list', '--json']).find((r) => r.run_id === runId);
    assert.equal(listed?.partial, true);
    const shown = cli.run(['trace', 'show', runId]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /INCOMPLETE: trace\.json was never written/);
    const unknown = cli.run(['trace', 'show', 'r20261203T044630890Z-000000']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no trace for run r20261203T044630890Z-000000/);
  });

  it('Ctrl-C during a streaming answer cancels the run: exit 1, CANCELLED, and the trace says so', async () => {
    server.scriptChat('Thought: a long answer that is being written slowly.');
    server.inject('/v1/chat/completions', { kind: 'stalled_stream' });
    const before = server.requests.length;
    const child = spawn(process.execPath, [CLI, 'ask', 'A long question?', '--json'], {
      // The snapshot was built with embeddings: its endpoint is needed to search it (ask checks that first).
      env: { PATH: process.env.PATH ?? '', HOME: cli.home, DOCQA_HOME: cli.store, DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'fake-embed', DOCQA_EMBEDDING_DIMENSIONS: '32', DOCQA_EMBEDDING_API_KEY: EMBED_KEY, DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: CHAT_KEY },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    let done = false;
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => ((done = true), resolve(code))));
    while (server.requests.length === before && !done) await sleep(20); // the model call is streaming (and stalled)
    assert.ok(!done, `the run ended before calling the model: ${stderr}`);
    await sleep(100);
    child.kill('SIGINT');
    assert.equal(await exited, 1);
    assert.match(stderr, /no answer \(CANCELLED\)/);
    const out = JSON.parse(stdout) as { run_id: string; release: { status: string } };
    assert.equal(out.release.status, 'CANCELLED');
    const shown = cli.json<{ meta: { release: { status: string } }; spans: SpanNode[] }>(['trace', 'show', out.run_id, '--json']);
    assert.equal(shown.meta.release.status, 'CANCELLED');
    assert.equal(shown.spans[0]!.status, 'cancelled');
  });

  it('only the newest DOCQA_KEEP_TRACES traces are kept', async () => {
    const small = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: CHAT_KEY, DOCQA_KEEP_TRACES: '2' });
    small.json(['sources', 'add', fixture('markdown', 'cell-notes.md'), '--json']);
    assert.equal((await small.runAsync(['index', '--yes'])).code, 0);
    const ids: string[] = [];
    for (const q of ['One?', 'Two?', 'Three?']) {
      server.scriptChat('Thought: simple.\nAction: Finish[Yes.]');
      ids.push((JSON.parse((await small.runAsync(['ask', q, '--json'])).stdout) as { run_id: string }).run_id);
    }
    assert.deepEqual(small.json<Array<{ run_id: string; question: string }>>(['trace', 'list', '--json']).map((r) => r.question), ['Three?', 'Two?']);
    assert.ok(!fs.existsSync(path.join(small.store, 'traces', ids[0]!)));
    assert.match(small.run(['ask', 'x'], { DOCQA_KEEP_TRACES: '0' }).stderr, /DOCQA_KEEP_TRACES must be at least 1/);
  });

  it('a trace directory that cannot be written: the answer is still released and the trace reported partial', async () => {
    const broken = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: CHAT_KEY });
    broken.json(['sources', 'add', fixture('markdown', 'cell-notes.md'), '--json']);
    assert.equal((await broken.runAsync(['index', '--yes'])).code, 0);
    fs.writeFileSync(path.join(broken.store, 'traces'), 'not a folder'); // every write under traces/ fails
    server.scriptChat('Thought: simple.\nAction: Finish[Cells have a nucleus.]');
    const r = await broken.runAsync(['ask', 'What do cells have?', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { answer: string; release: { status: string }; trace: { partial: boolean; writer_error: string } };
    assert.deepEqual([out.release.status, out.answer, out.trace.partial], ['SUCCESS', 'Cells have a nucleus.', true]);
    assert.match(out.trace.writer_error, /ENOTDIR|not a directory/);
    assert.match(r.stderr, /trace of r\S+ is partial/);
    assert.match(broken.run(['trace', 'list']).stdout, /no traces yet/);
    // Text mode: the answer is printed first, the warning after it.
    server.scriptChat('Thought: simple.\nAction: Finish[Cells divide.]');
    const t = await broken.runAsync(['ask', 'Do cells divide?']);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^Cells divide\.\n\n\[SUCCESS\] 0 tool calls/);
    assert.match(t.stderr, /is partial .*the answer is unaffected/);
  });
});
