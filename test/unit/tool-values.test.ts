import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { addSources } from '../../src/index/sources/sources';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { type LoadedSnapshot, loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { StepOutcome, StepScope } from '../../src/shared/step-record';
import { TOOLS, describeCall, runTool, summarizeCall, toolOutputJsonSchema, toolPayloadSchema } from '../../src/tools/registry';
import { TOOL_NAMES, type ToolName } from '../../src/tools/tool';
import { fixture, tempDir } from '../helpers';

/**
 * A tool is one value (issue 33 item 1): its output schema is what it really returns, its summary is the
 * step record every UI shows, and the code around the tools reads neither a tool's fields nor its name.
 */
let snap: LoadedSnapshot;

describe('tools describe themselves', () => {
  before(async () => {
    const dir = new DataDir(tempDir());
    await addSources(dir, [fixture('markdown', 'cell-notes.md'), fixture('markdown', 'zh-history.md')]);
    await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: { provider: 'none' }, embeddingApiKey: '', pool: createIngestPool(DEFAULT_INGEST_OPTIONS, null) });
    snap = (await loadActiveSnapshot(dir))!;
  });

  /** Requests that give results, empty results and errors, for every tool. */
  function requests(): Array<[ToolName, Record<string, unknown>]> {
    const doc = snap.documents[0]!;
    const section = doc.sections[1]?.path ?? doc.sections[0]!.path;
    return [
      ['list_documents', {}],
      ['list_documents', { title_contains: 'no such title' }],
      ['get_outline', { doc_ids: [doc.doc_id] }],
      ['get_outline', { doc_ids: ['d-missing'] }],
      ['search_blocks', { query: 'cell membrane' }],
      ['search_blocks', { query: 'zzqxv' }],
      ['list_blocks', { doc_id: doc.doc_id, section_paths: [section] }],
      ['list_blocks', { doc_id: doc.doc_id, section_paths: ['no such section'] }],
      ['scan_term', { term: 'cell' }],
      ['scan_term', { term: 'zzqxv', doc_ids: [doc.doc_id] }],
      ['scan_term', { term: '' }],
    ];
  }

  it('every payload matches its tool’s output schema (or the shared error payload); the JSON schemas render', async () => {
    assert.deepEqual(TOOLS.map((t) => t.name), [...TOOL_NAMES]);
    for (const [name, input] of requests()) {
      const tool = TOOLS.find((t) => t.name === name)!;
      const payload = await runTool(name, input, { snapshot: snap });
      const parsed = toolPayloadSchema(tool).safeParse(payload);
      assert.ok(parsed.success, `${name} ${JSON.stringify(input)}: ${parsed.success ? '' : parsed.error.message}`);
    }
    for (const tool of TOOLS) {
      const schema = toolOutputJsonSchema(tool) as { anyOf?: Array<{ properties?: Record<string, unknown> }> };
      assert.ok(schema.anyOf?.[0]?.properties?.token_estimate, `${tool.name}: the output schema names token_estimate`);
      assert.ok(schema.anyOf?.[1]?.properties?.error, `${tool.name}: the output schema names the error payload`);
    }
  });

  it('a step record is valid data with words in both languages, and its refs are the payload’s blocks', async () => {
    for (const [name, input] of requests()) {
      const payload = await runTool(name, input, { snapshot: snap });
      const step = summarizeCall(name, input, payload, { snapshot: snap });
      StepScope.parse(step.scope);
      StepOutcome.parse(step.outcome);
      assert.deepEqual(step.scope, describeCall(name, input, { snapshot: snap }), 'the scope shown while it runs is the one recorded');
      for (const w of [step.scope.words, step.outcome.words]) assert.ok(w.en && w.zh, `${name}: words in both languages`);
      assert.equal(step.outcome.kind, payload.error ? 'error' : payload.empty_reason ? 'empty' : 'ok');
      const items = ((payload.blocks ?? payload.hits) as Array<{ ref: string }> | undefined) ?? [];
      assert.deepEqual(step.briefs.map((b) => b.ref), items.map((b) => b.ref), name);
      assert.deepEqual(step.returned.map((b) => b.ref), ((payload.blocks as Array<{ ref: string }> | undefined) ?? []).map((b) => b.ref), `${name}: only full texts are citable`);
    }
  });

  it('the harness, the replay and the chat view read no tool by name: a tool is its file and one registry line', () => {
    const root = path.join(__dirname, '..', '..');
    const files = ['src/harness/tool-step.ts', 'src/harness/progress-snapshot.ts', 'src/app/replay.ts', 'src/shared/release-words.ts', 'webview/chat/steps-view.tsx', 'webview/chat/turn-state.ts', 'src/app/conversations/conversation-turns.ts'];
    for (const f of files) {
      const text = fs.readFileSync(path.join(root, f), 'utf8');
      for (const name of TOOL_NAMES) assert.ok(!text.includes(`'${name}'`) && !text.includes(`"${name}"`), `${f} names ${name}`);
      for (const field of ['payload.blocks', 'payload.hits', 'payload.documents', 'payload.total_count']) assert.ok(!text.includes(field), `${f} reads ${field}`);
    }
  });
});
