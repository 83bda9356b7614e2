/**
 * `docqa mcp` at 10k blocks (1,000 documents of 10 SQuAD / CMRC paragraphs, 256-dimension vectors, no
 * embedding endpoint: keyword-only searches, as a keyless client gets them): the latency of a tool call
 * through the SDK's client over stdio on a running server, next to what an assistant without MCP does —
 * one `docqa tool` process per call — and next to the same tool run in-process by runTool (what the
 * protocol, the pin and the spots add). The first call of a new session (spawn, initialize, snapshot
 * load) is measured against `docqa tool` too.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DataDir } from '../src/common/data-dir';
import { DATA_LAYOUT_VERSION, LAYOUT_FORMAT_VERSION, writeLayout } from '../src/common/data-layout';
import { loadSnapshot, pointActiveTo } from '../src/index/store/snapshot-store';
import { normalizeRows } from '../src/index/search/vector-index';
import { runTool } from '../src/tools/registry';
import type { ToolName } from '../src/tools/tool';
import { benchDocuments, qaParagraphs, seededRandom, writeBenchSnapshot } from './fixtures';
import type { BenchRow } from './report';

const BLOCKS = 10_000;
const DIMS = 256;
const CALLS = 30;
const CLI = path.join(__dirname, '..', 'dist', 'cli.js');

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

async function connect(store: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '--store', store, 'mcp'], env: { PATH: process.env.PATH ?? '', HOME: store, DOCQA_EMBEDDING_PROVIDER: 'none' }, stderr: 'ignore' }));
  return client;
}

export async function mcpBench(): Promise<BenchRow[]> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const { paragraphs, questions } = qaParagraphs();
  if (paragraphs.length === 0) return [];
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-mcp-'));
  try {
    const dir = new DataDir(root);
    await writeLayout(dir, { formatVersion: LAYOUT_FORMAT_VERSION, layout: DATA_LAYOUT_VERSION, migrations: [] });
    const { documents } = benchDocuments(BLOCKS, paragraphs);
    const matrix = Float32Array.from({ length: BLOCKS * DIMS }, seededRandom(5));
    normalizeRows(matrix, DIMS);
    await writeBenchSnapshot(dir, 'bench-mcp', documents, matrix, DIMS);
    await pointActiveTo(dir, 'bench-mcp');
    const calls: Array<[ToolName, Record<string, unknown>]> = [
      ...questions.slice(0, CALLS).map((q): [ToolName, Record<string, unknown>] => ['search_blocks', { query: q }]),
      ...documents.slice(0, CALLS).map((d): [ToolName, Record<string, unknown>] => ['list_blocks', { doc_id: d.doc_id }]),
    ];
    const of = (tool: ToolName) => calls.filter(([t]) => t === tool);

    // In-process: the tool alone on the loaded snapshot, keyword-only as the server runs it.
    const snapshot = await loadSnapshot(dir, 'bench-mcp');
    const inProcess = async (tool: ToolName) => {
      const out: number[] = [];
      for (const [, input] of of(tool)) {
        const t = performance.now();
        await runTool(tool, input, { snapshot, keywordOnly: true });
        out.push(performance.now() - t);
      }
      return out;
    };
    await inProcess('search_blocks');

    // A new session: spawn, initialize, first call (the snapshot loads).
    const t0 = performance.now();
    const client = await connect(root);
    await client.callTool({ name: 'search_blocks', arguments: calls[0]![1] });
    const firstCall = performance.now() - t0;
    const overMcp = async (tool: ToolName) => {
      const out: number[] = [];
      for (const [, input] of of(tool)) {
        const t = performance.now();
        await client.callTool({ name: tool, arguments: input });
        out.push(performance.now() - t);
      }
      return out;
    };
    const mcpSearch = median(await overMcp('search_blocks'));
    const mcpList = median(await overMcp('list_blocks'));
    await client.close();
    const localSearch = median(await inProcess('search_blocks'));
    const localList = median(await inProcess('list_blocks'));

    // Without MCP: one `docqa tool` process per call (load included, as an assistant shelling out pays it).
    const oneShot: number[] = [];
    for (const [, input] of of('search_blocks').slice(0, 5)) {
      const t = performance.now();
      const r = spawnSync(process.execPath, [CLI, '--store', root, 'tool', 'search_blocks', JSON.stringify(input)], { env: { PATH: process.env.PATH ?? '', HOME: root, DOCQA_EMBEDDING_PROVIDER: 'none' }, stdio: ['ignore', 'ignore', 'pipe'] });
      if (r.status !== 0) throw new Error(`docqa tool failed: ${r.stderr.toString()}`);
      oneShot.push(performance.now() - t);
    }
    const cliCall = median(oneShot);
    return [
      { name: 'mcp.10k.search_blocks_call_p50_ms (vs docqa tool per call)', value: mcpSearch, unit: 'ms', floor: cliCall, ratio: mcpSearch / cliCall, target: '<= 0.25' },
      { name: 'mcp.10k.first_call_ms (spawn+initialize+load, vs docqa tool)', value: firstCall, unit: 'ms', floor: cliCall, ratio: firstCall / cliCall, target: '<= 1.5' },
      { name: 'mcp.10k.search_blocks_call_p50_ms (vs runTool in-process)', value: mcpSearch, unit: 'ms', floor: localSearch, ratio: mcpSearch / localSearch },
      { name: 'mcp.10k.list_blocks_call_p50_ms (vs runTool in-process)', value: mcpList, unit: 'ms', floor: localList, ratio: mcpList / localList },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
