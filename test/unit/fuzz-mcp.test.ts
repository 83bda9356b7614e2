import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolReader } from '../../src/app/tool-reader';
import { openDataDir } from '../../src/app/upgrade/open-data-dir';
import { DEFAULT_SETTINGS, fixedKeys } from '../../src/app/settings';
import { DataDir } from '../../src/common/data-dir';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { addSources } from '../../src/index/sources/sources';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { readActiveId } from '../../src/index/store/snapshot-store';
import { createMcpServer } from '../../src/mcp/mcp-server';
import { serveStdio } from '../../src/mcp/stdio-session';
import { TOOL_NAMES } from '../../src/tools/tool';
import { fixture, tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { anyText, assertPrototypesClean, hostileJson, hostileKey, mutatedJson, runs, trialsOf, withMembers } from '../fuzz';

/**
 * Property tests of what an MCP client can send DocQA's server (issue 35): tool arguments of any shape
 * through the SDK's client (in memory, the real protocol), and any lines at all on its stdin. Every
 * call is answered — a result, or a tool error with a documented code (`invalid_argument`,
 * `scope_not_found`), or for a tool that does not exist a protocol error — and the server keeps serving.
 */
let root: string;
let docId: string;
const BAD_INPUT = new Set(['invalid_argument', 'scope_not_found']);

function newServer() {
  return createMcpServer({ reader: new ToolReader({ dataDir: root, settings: DEFAULT_SETTINGS, keys: fixedKeys(undefined, undefined) }), version: 'test' });
}

async function inMemoryClient(): Promise<Client> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await newServer().connect(a);
  const client = new Client({ name: 'fuzz', version: '1' });
  await client.connect(b);
  return client;
}

function assertAnswer(name: string, r: CallToolResult): boolean {
  if (r.isError) {
    const p = JSON.parse((r.content[1] as { text: string }).text) as { error: { code: string; message: string } };
    assert.ok(BAD_INPUT.has(p.error.code), `${name}: ${p.error.code}: ${p.error.message}`);
    assert.equal((r.content[0] as { text: string }).text, `${p.error.code}: ${p.error.message}`);
    return false;
  }
  assert.ok(r.structuredContent || JSON.parse((r.content[0] as { text: string }).text), name);
  return true;
}

describe('fuzz: MCP inputs', () => {
  let client: Client;
  before(async () => {
    root = tempDir();
    const dir = new DataDir(root);
    await openDataDir(dir, { appVersion: 'test', now: () => new Date() });
    await addSources(dir, [fixture('markdown', 'cell-notes.md'), fixture('markdown', 'zh-history.md'), fixture('text', 'study-plan.txt')]);
    await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: { provider: 'none' }, embeddingApiKey: '', pool: createIngestPool(DEFAULT_INGEST_OPTIONS, null) });
    assert.ok(await readActiveId(dir));
    client = await inMemoryClient();
    const docs = (await client.callTool({ name: 'list_documents', arguments: {} })) as CallToolResult;
    docId = (docs.structuredContent ?? JSON.parse((docs.content[0] as { text: string }).text)).documents[0].doc_id as string;
  });
  after(async () => {
    await client?.close();
    assertPrototypesClean();
  });

  it('any tool name and any arguments object: a result, a documented tool error, or (no such tool) a protocol error', async () => {
    let results = 0;
    const name = fc.oneof(fc.constantFrom(...TOOL_NAMES), hostileKey);
    const args = fc.oneof(
      hostileJson.filter((j) => j.startsWith('{')),
      fc.constantFrom(...TOOL_NAMES).chain((t) => mutatedJson({ list_documents: {}, get_outline: { doc_ids: ['DOC'] }, search_blocks: { query: 'cell' }, list_blocks: { doc_id: 'DOC' }, scan_term: { term: 'cell' } }[t])),
      fc.array(fc.tuple(hostileKey, hostileJson), { maxLength: 3 }).map((m) => withMembers('{"term":"cell","doc_ids":["DOC"]}', m)),
    );
    await fc.assert(
      fc.asyncProperty(name, args, async (n, json) => {
        const parsed: unknown = JSON.parse(json.replaceAll('"DOC"', JSON.stringify(docId)));
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return;
        try {
          const r = (await client.callTool({ name: n, arguments: parsed as Record<string, unknown> })) as CallToolResult;
          assert.ok((TOOL_NAMES as readonly string[]).includes(n), `${n} is no tool but was answered`);
          if (assertAnswer(n, r)) results++;
        } catch (err) {
          assert.ok(err instanceof McpError && err.code === ErrorCode.InvalidParams && !(TOOL_NAMES as readonly string[]).includes(n), `${n}: ${String(err)}`);
        }
        assertPrototypesClean();
      }),
      runs(400),
    );
    assert.ok(results > 0, 'some generated calls are valid and give a result');
    recordTrials({ area: 'fuzzing', fault: 'MCP tool calls: any tool name, any arguments object (__proto__, wrong types, extra keys)', trials: trialsOf(400), outcome: 'a result, a tool error with a documented code, or a protocol error for an unknown tool; no crash' }, __filename);
  });

  it('any lines on stdin (broken JSON, wrong JSON-RPC, hostile params) never stop the server: a valid request after them is answered', async () => {
    const valid = [
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"scan_term","arguments":{"term":"cell"}}}',
      '{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"docqa_cited_answer","arguments":{"question":"q"}}}',
    ];
    const line = fc.oneof(anyText(80).map((s) => s.replace(/\n/g, ' ')), hostileJson, fc.constantFrom(...valid).chain((v) => mutatedJson(JSON.parse(v))));
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 6 }), async (lines) => {
        const input = new PassThrough();
        let out = '';
        const output = new Writable({
          write(chunk: Buffer, _e, done) {
            out += chunk.toString('utf8');
            done();
          },
        });
        const served = serveStdio(newServer(), input, output);
        input.write(`${valid[0]}\n`);
        for (const l of lines) input.write(`${l}\n`);
        input.write('{"jsonrpc":"2.0","id":"last","method":"tools/list"}\n');
        input.end();
        await served;
        const answers = out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { id?: unknown; result?: { tools?: unknown[] } });
        const last = answers.find((a) => a.id === 'last');
        assert.equal(last?.result?.tools?.length, TOOL_NAMES.length, out.slice(-500));
        assertPrototypesClean();
      }),
      runs(150),
    );
    recordTrials({ area: 'fuzzing', fault: 'MCP stdin: broken JSON, wrong JSON-RPC, mutated requests', trials: trialsOf(150), outcome: 'every line after them answered; the session ends when stdin closes; no crash' }, __filename);
  });
});
