import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { TOOLS, toolJsonSchema } from '../../src/tools/registry';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { clientConfigJson, mcpLaunch } from '../../src/vscode/mcp-launch';
import { CLI, makeCli } from './cli';
import { copyFixture, treeHashes } from './datadir-fixture';
import { type McpSession, call, connectMcp, payloadOf } from './mcp-clients';

interface BlockItem {
  ref: string;
  doc_id: string;
  doc_title: string;
  source_label: string;
  section_path: string;
  text: string;
  path: string;
  location: { kind: string; line_start?: number; line_end?: number; page?: number };
  location_label: string;
  link: string;
}

/**
 * `docqa mcp` driven by the MCP SDK's own client over stdio (the built CLI as the server process),
 * against real indexes built by the CLI: the tools listed and called, their errors, the prompt, a
 * rebuild while calls run, and several clients at once.
 */
describe('docqa mcp', () => {
  const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
  let session: McpSession;

  before(async () => {
    cli.json(['sources', 'add', fixture('markdown', 'cell-notes.md'), fixture('pdf', 'cell-lecture.pdf'), fixture('markdown', 'zh-history.md'), '--json']);
    const built = await cli.runAsync(['index', '--yes']);
    assert.equal(built.code, 0, built.stderr);
    session = await connectMcp(cli.store);
  });
  after(async () => {
    await session?.close();
  });

  it('lists the five tools, read-only, with the input schemas the tools validate with, and the citation prompt', async () => {
    const { tools } = await session.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      TOOLS.map((t) => t.name),
    );
    for (const t of tools) {
      const own = TOOLS.find((x) => x.name === t.name)!;
      assert.deepEqual(t.inputSchema, toolJsonSchema(own), `${t.name}'s input schema is the zod schema's`);
      assert.equal(t.annotations?.readOnlyHint, true, t.name);
      assert.equal(t.annotations?.destructiveHint, false, t.name);
      assert.ok(t.description?.startsWith(own.description), t.name);
      // The output schema is the tool's declared output (zod → JSON Schema) with the spots and the snapshot id.
      const out = t.outputSchema as { properties: Record<string, { items?: { properties: Record<string, unknown>; required: string[] } }>; required: string[] };
      const declared = z.toJSONSchema(own.output) as { properties: Record<string, unknown>; required: string[] };
      assert.deepEqual(Object.keys(out.properties).sort(), [...Object.keys(declared.properties), 'token_estimate', 'snapshot_id', 'note'].sort(), t.name);
      assert.deepEqual(out.required.sort(), [...declared.required, 'token_estimate'].sort(), t.name);
      for (const list of ['blocks', 'hits']) if (out.properties[list]) assert.ok(['path', 'location', 'location_label', 'link'].every((k) => k in out.properties[list]!.items!.properties) && out.properties[list]!.items!.required.includes('path'), `${t.name}.${list}`);
      if (out.properties.documents) assert.ok('path' in out.properties.documents.items!.properties, `${t.name}.documents`);
    }
    assert.match(tools.find((t) => t.name === 'search_blocks')!.description!, /keyword-only/);
    const { prompts } = await session.client.listPrompts();
    assert.deepEqual(
      prompts.map((p) => p.name),
      ['docqa_cited_answer'],
    );
    assert.equal(session.client.getServerVersion()?.name, 'docqa');
  });

  it('answers each tool with the contract payload, blocks carrying ref, title, source, section, file and location (lines, PDF page)', async () => {
    const docs = payloadOf(await call(session, 'list_documents', {})) as { documents: Array<{ doc_id: string; title: string; path: string }>; total: number; snapshot_id: string };
    assert.equal(docs.total, 3);
    assert.match(docs.snapshot_id, /^s/);
    for (const d of docs.documents) assert.ok(path.isAbsolute(d.path) && fs.existsSync(d.path), d.path);
    const md = docs.documents.find((d) => d.path.endsWith('cell-notes.md'))!;
    const pdf = docs.documents.find((d) => d.path.endsWith('cell-lecture.pdf'))!;

    const outline = payloadOf(await call(session, 'get_outline', { doc_ids: [md.doc_id] })) as { documents: Array<{ doc_id: string; sections: Array<{ path: string }> }> };
    assert.equal(outline.documents[0]!.doc_id, md.doc_id);
    assert.ok(outline.documents[0]!.sections.some((s) => s.path === 'Cells'));

    const listed = payloadOf(await call(session, 'list_blocks', { doc_id: md.doc_id, section_paths: ['Cells'] })) as { blocks: BlockItem[]; total: number };
    assert.ok(listed.total > 1);
    const lines = fs.readFileSync(md.path, 'utf8').split('\n');
    for (const b of listed.blocks) {
      assert.equal(b.ref, `${md.doc_id}#${b.ref.split('#')[1]}`);
      assert.equal(b.doc_title, 'Cell Biology Notes');
      assert.equal(b.source_label, 'cell-notes.md');
      assert.ok(b.section_path.startsWith('Cells'));
      assert.equal(b.path, md.path);
      assert.equal(b.location.kind, 'lines');
      // The location is where the text is: its first words are on the first line of the range.
      const first = b.text.split('\n')[0]!.replace(/^#+\s*/, '').slice(0, 20);
      assert.ok(lines.slice(b.location.line_start! - 1, b.location.line_end).join('\n').includes(first), `${b.ref} at ${b.location_label}`);
      assert.equal(b.link, `file://${md.path}#L${b.location.line_start}${b.location.line_end !== b.location.line_start ? `-L${b.location.line_end}` : ''}`);
    }

    const found = payloadOf(await call(session, 'search_blocks', { query: 'phospholipid bilayer', doc_ids: [pdf.doc_id] })) as { mode: string; blocks: BlockItem[]; note?: string };
    assert.equal(found.mode, 'keyword_only');
    assert.equal(found.note, undefined, 'a keyword-only snapshot needs no note');
    assert.ok(found.blocks.length > 0);
    for (const b of found.blocks) {
      assert.equal(b.location.kind, 'page');
      assert.equal(b.link, `file://${pdf.path}#page=${b.location.page}`);
      assert.equal(b.location_label, `page ${b.location.page}`);
    }

    // Structured content (checked by the SDK's client against the output schema) and the same JSON as text.
    const raw = await call(session, 'scan_term', { term: 'Hooke' });
    assert.ok(raw.structuredContent);
    assert.deepEqual(raw.structuredContent, JSON.parse((raw.content[0] as { text: string }).text));
    const scanned = payloadOf(raw) as { total_count: number; hits: Array<{ ref: string; snippet: string; path: string; location: { kind: string } }> };
    assert.equal(scanned.total_count, 1);
    assert.equal(scanned.hits[0]!.path, md.path);
    assert.match(scanned.hits[0]!.snippet, /Hooke/);
    // The same payload `docqa tool` prints, plus the spots and the snapshot id.
    const viaCli = cli.json<{ hits: Array<Record<string, unknown>> }>(['tool', 'scan_term', '{"term":"Hooke"}']);
    const { path: _p, location: _l, location_label: _ll, link: _k, ...contract } = scanned.hits[0] as unknown as Record<string, unknown>;
    assert.deepEqual(contract, viaCli.hits[0]);
    assert.equal(session.stderr(), '', 'nothing on stderr');
  });

  it('errors are tool errors with the contract code and words: invalid_argument, scope_not_found; an unknown tool is a protocol error', async () => {
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      ['get_outline', { doc_ids: [] }, 'invalid_argument', /doc_ids/],
      ['search_blocks', { query: '   ' }, 'invalid_argument', /query/],
      ['list_blocks', { doc_id: 'd0000000000' }, 'scope_not_found', /unknown doc_id: d0000000000; list_documents gives the valid ids/],
      ['scan_term', { term: 'x', extra: 1 }, 'invalid_argument', /extra/],
      ['list_documents', { lang: 'fr' }, 'invalid_argument', /lang/],
    ];
    for (const [name, args, code, words] of cases) {
      const r = await call(session, name, args);
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.equal(r.structuredContent, undefined);
      const p = payloadOf(r) as { error: { code: string; message: string; retryable: boolean } };
      assert.equal(p.error.code, code);
      assert.match(p.error.message, words);
      assert.equal((r.content[0] as { text: string }).text, `${code}: ${p.error.message}`);
    }
    await assert.rejects(session.client.callTool({ name: 'delete_documents', arguments: {} }), (err: unknown) => err instanceof McpError && /unknown tool delete_documents; DocQA's tools are list_documents/.test(err.message));
    recordTrials({ area: 'mcp', fault: 'bad tool arguments and an unknown tool over MCP', trials: cases.length + 1, outcome: 'tool error with the contract code and words (unknown tool: a protocol error); the server keeps serving' }, __filename);
  });

  it('the prompt carries the citation rules of the bundle in the question’s language, and the question', async () => {
    const en = await session.client.getPrompt({ name: 'docqa_cited_answer', arguments: { question: 'What does the membrane do?' } });
    const text = (en.messages[0]!.content as { text: string }).text;
    const bundle = fs.readFileSync(path.join(__dirname, '..', '..', 'prompts', 'baseline-en', 'system.md'), 'utf8');
    const citation = /<citation>\n[\s\S]*?\n<\/citation>/.exec(bundle)![0];
    assert.ok(text.includes(citation), 'the <citation> section as the bundle has it');
    assert.ok(text.includes('<evidence>') && text.includes('<coverage>') && text.includes('<answer>'));
    assert.ok(!text.includes('<response_protocol>'), 'not the harness’s own loop protocol');
    assert.match(text, /<question>\nWhat does the membrane do\?\n<\/question>$/);
    const zh = await session.client.getPrompt({ name: 'docqa_cited_answer', arguments: { question: '张骞出使西域是哪一年?' } });
    assert.match((zh.messages[0]!.content as { text: string }).text, /【来源:doc_id#block_id】[\s\S]*baseline-zh|baseline-zh[\s\S]*【来源:doc_id#block_id】/);
    await assert.rejects(session.client.getPrompt({ name: 'docqa_cited_answer', arguments: { question: ' ' } }), /needs a question/);
    await assert.rejects(session.client.getPrompt({ name: 'docqa_cited_answer', arguments: { question: 'q', lang: 'fr' } }), /lang must be zh or en/);
  });

  it('an empty data directory answers collection_unavailable, saying how to build one', async () => {
    const empty = await connectMcp(path.join(tempDir(), 'none'));
    try {
      const r = await call(empty, 'list_documents', {});
      assert.equal(r.isError, true);
      const p = payloadOf(r) as { error: { code: string; message: string } };
      assert.equal(p.error.code, 'collection_unavailable');
      assert.match(p.error.message, /no snapshot is active in .*; build one with `docqa index`/);
    } finally {
      await empty.close();
    }
  });

  it('writes nothing: an older data directory is not migrated (it says how to upgrade), and calls leave every file as it was', async () => {
    const { data } = copyFixture();
    const beforeHashes = treeHashes(data);
    const old = await connectMcp(data);
    try {
      const p = payloadOf(await call(old, 'search_blocks', { query: 'cell' })) as { error: { code: string; message: string } };
      assert.equal(p.error.code, 'collection_unavailable');
      assert.match(p.error.message, /is at layout 1, older than this DocQA's \(\d+\); this server only reads: run any docqa command on it once/);
    } finally {
      await old.close();
    }
    assert.deepEqual(treeHashes(data), beforeHashes);
    // The current directory: every call leaves it byte for byte as it was (pins come and go).
    const current = treeHashes(cli.store);
    for (const t of TOOLS) await call(session, t.name, t.name === 'list_documents' ? {} : { bogus: true });
    await call(session, 'scan_term', { term: 'cell' });
    const now = treeHashes(cli.store);
    assert.deepEqual([...now].filter(([f]) => !f.startsWith('pins/')), [...current].filter(([f]) => !f.startsWith('pins/')));
    assert.equal([...now.keys()].filter((f) => f.startsWith('pins/')).length, 0, 'no pin left behind');
  });
});

/** A CLI whose data directory holds `file` indexed with the fake server's embedding model (keyless, on this machine). */
async function indexedWithEmbeddings(server: FakeOpenAIServer, file: string) {
  const env = { DOCQA_EMBEDDING_PROVIDER: 'openai-compatible', DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'fake', DOCQA_EMBEDDING_DIMENSIONS: '16' };
  const cli = makeCli(env);
  cli.json(['sources', 'add', file, '--json']);
  const built = await cli.runAsync(['index', '--yes']);
  assert.equal(built.code, 0, built.stderr);
  return { env, cli };
}

describe('docqa mcp: search with the snapshot’s embeddings', () => {
  it('embeds the query when the snapshot’s endpoint is configured; without it, searches by keywords and says why', async () => {
    const server = await new FakeOpenAIServer().start();
    try {
      const { env, cli } = await indexedWithEmbeddings(server, fixture('markdown', 'zh-history.md'));
      const embedded = server.requests.length;
      const hybrid = await connectMcp(cli.store, env);
      const keyword = await connectMcp(cli.store, { DOCQA_EMBEDDING_PROVIDER: 'none' });
      const remote = await connectMcp(cli.store, { ...env, DOCQA_EMBEDDING_BASE_URL: 'https://embeddings.example.invalid/v1' });
      try {
        const h = payloadOf(await call(hybrid, 'search_blocks', { query: '张骞' })) as { mode: string; note?: string; blocks: unknown[] };
        assert.equal(h.mode, 'hybrid');
        assert.equal(h.note, undefined);
        assert.equal(server.requests.length, embedded + 1, 'the query, once');
        const k = await call(keyword, 'search_blocks', { query: '张骞' });
        const kp = payloadOf(k) as { mode: string; note: string; blocks: unknown[] };
        assert.equal(kp.mode, 'keyword_only');
        assert.match(kp.note, /this snapshot has vectors from fake at .*, but no embedding endpoint is configured for this server \(DOCQA_EMBEDDING_BASE_URL, DOCQA_EMBEDDING_MODEL\): searched by keywords alone/);
        assert.equal((k.content[1] as { text: string }).text, kp.note, 'said in words too');
        assert.ok(kp.blocks.length > 0);
        const r = payloadOf(await call(remote, 'search_blocks', { query: '张骞' })) as { mode: string; note: string };
        assert.equal(r.mode, 'keyword_only');
        assert.match(r.note, /configured embedding model is fake at embeddings\.example\.invalid/);
        assert.equal(server.requests.length, embedded + 1, 'nothing else was sent');
      } finally {
        await Promise.all([hybrid.close(), keyword.close(), remote.close()]);
      }
    } finally {
      await server.close();
    }
  });
});

describe('docqa mcp: rebuilds and several clients', () => {
  it('two clients calling while a rebuild activates a new snapshot: each call sees one whole snapshot, the next call the new one', async () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    const dir = tempDir();
    const file = path.join(dir, 'n.md');
    fs.writeFileSync(file, '# N\n\nThe old wording about osmosis.\n');
    // A larger collection, so the rebuild takes a while.
    fs.cpSync(fixture('markdown', 'vue-en'), path.join(dir, 'vue-en'), { recursive: true });
    cli.json(['sources', 'add', dir, '--json']);
    const first = JSON.parse((await cli.runAsync(['index', '--yes', '--json'])).stdout) as { snapshot_id: string };
    const clients = [await connectMcp(cli.store), await connectMcp(cli.store)];
    try {
      const seen = new Map<string, number>();
      const check = async (c: McpSession) => {
        const p = payloadOf(await call(c, 'scan_term', { term: 'wording' })) as { snapshot_id: string; total_count: number; hits: Array<{ snippet: string }> };
        // One whole snapshot: the old text with the old id, or the new text with another id; never none or both.
        assert.equal(p.total_count, 1, JSON.stringify(p));
        assert.equal(/osmosis/.test(p.hits[0]!.snippet), p.snapshot_id === first.snapshot_id, `${p.snapshot_id}: ${p.hits[0]!.snippet}`);
        seen.set(p.snapshot_id, (seen.get(p.snapshot_id) ?? 0) + 1);
      };
      await Promise.all(clients.map(check));
      fs.writeFileSync(file, '# N\n\nThe new wording about diffusion.\n');
      fs.writeFileSync(path.join(dir, 'vue-en', 'touched.md'), '# Touched\n\nA new page so that the rebuild has work.\n');
      const rebuild = cli.runAsync(['index', '--yes', '--json']);
      let building = true;
      void rebuild.then(() => (building = false));
      let during = 0;
      while (building) {
        await Promise.all(clients.map(check));
        during += clients.length;
      }
      const second = JSON.parse((await rebuild).stdout) as { snapshot_id: string };
      assert.notEqual(second.snapshot_id, first.snapshot_id);
      // The next call of each client reads the new snapshot.
      for (const c of clients) {
        const p = payloadOf(await call(c, 'scan_term', { term: 'diffusion' })) as { snapshot_id: string; total_count: number };
        assert.equal(p.snapshot_id, second.snapshot_id);
        assert.equal(p.total_count, 1);
      }
      // Both clients answer the same call with the same payload, byte for byte.
      const [a, b] = await Promise.all(clients.map(async (c) => JSON.stringify(payloadOf(await call(c, 'list_blocks', { doc_id: (payloadOf(await call(c, 'list_documents', {})) as { documents: Array<{ doc_id: string }> }).documents[0]!.doc_id })))));
      assert.equal(a, b);
      for (const c of clients) assert.equal(c.stderr(), '');
      recordTrials({ area: 'mcp', fault: `a rebuild activating a new snapshot while two MCP clients call (${during} calls during the build)`, trials: during + 4, outcome: 'every call saw one whole snapshot; the next call saw the new one' }, __filename);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

describe('docqa mcp: the configuration the extension gives VS Code and copies for other clients', () => {
  it('starts the server the extension ships over its data directory, with the embedding endpoint from the settings and no key', async () => {
    const server = await new FakeOpenAIServer().start();
    try {
      const { env, cli } = await indexedWithEmbeddings(server, fixture('markdown', 'cell-notes.md'));
      const settings: Record<string, unknown> = { 'docqa.embedding.provider': 'openai-compatible', 'docqa.embedding.baseUrl': server.baseURL, 'docqa.embedding.model': 'fake', 'docqa.embedding.dimensions': 16, 'docqa.embedding.apiKey': 'never-read' };
      const launch = mcpLaunch({ node: process.execPath, extensionPath: path.join(__dirname, '..', '..'), dataDir: cli.store, setting: (k) => settings[k] });
      assert.deepEqual(launch.args, [CLI, '--store', cli.store, 'mcp']);
      assert.deepEqual(launch.env, { ELECTRON_RUN_AS_NODE: '1', ...env });
      const copied = JSON.parse(clientConfigJson(launch)) as { mcpServers: { docqa: { command: string; args: string[]; env: Record<string, string> } } };
      assert.deepEqual(copied.mcpServers.docqa, { command: launch.command, args: launch.args, env: launch.env });
      assert.doesNotMatch(clientConfigJson(launch), /never-read|API_KEY/);
      // Started exactly as a client would start it from the copied configuration.
      const transport = new StdioClientTransport({ command: copied.mcpServers.docqa.command, args: copied.mcpServers.docqa.args, env: { PATH: process.env.PATH ?? '', ...copied.mcpServers.docqa.env }, stderr: 'pipe' });
      const client = new Client({ name: 'claude-desktop-like', version: '1' });
      await client.connect(transport);
      try {
        const r = payloadOf((await client.callTool({ name: 'search_blocks', arguments: { query: 'microscope' } })) as CallToolResult) as { mode: string; blocks: Array<{ path: string }> };
        assert.equal(r.mode, 'hybrid', 'a keyless local endpoint embeds the query');
        assert.equal(r.blocks[0]!.path, fixture('markdown', 'cell-notes.md'));
      } finally {
        await client.close();
      }
      // Keyword-only settings: nothing about embeddings but the provider.
      assert.deepEqual(mcpLaunch({ node: 'node', extensionPath: '/ext', dataDir: '/data', setting: (k) => (k === 'docqa.embedding.provider' ? 'none' : k === 'docqa.embedding.dimensions' ? null : '') }).env, { ELECTRON_RUN_AS_NODE: '1', DOCQA_EMBEDDING_PROVIDER: 'none' });
    } finally {
      await server.close();
    }
  });
});
