import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DataDir } from '../../src/common/data-dir';
import { parseAction } from '../../src/harness/action-parser';
import type { AgentEvent } from '../../src/shared/run-result';
import { RunLimits } from '../../src/harness/run-limits';
import type { Loop } from '../../src/harness/loop-context';
import { ProgressTracker } from '../../src/harness/progress-tracker';
import { gateRequest } from '../../src/harness/request-gate';
import { RunState } from '../../src/harness/run-state';
import { runToolStep } from '../../src/harness/tool-step';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { addSources } from '../../src/index/sources/sources';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { type LoadedSnapshot, loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { runTool } from '../../src/tools/registry';
import { TOOL_NAMES, type ToolName, type ToolPayload, ToolErrorCode } from '../../src/tools/tool';
import type { TraceRecord } from '../../src/shared/trace-model';
import { Tracer } from '../../src/trace/tracer';
import { fixture, tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { assertPrototypesClean, hostileJson, hostileKey, runs, trialsOf, withMembers } from '../fuzz';

/**
 * Property tests of the five tools' inputs (issue 24 item 6), on a real keyword-only snapshot: through
 * `runTool` (zod schema, then the tool) and through the path the harness takes (parseAction → the
 * request gate → runToolStep). Every input gives a payload: fields, an `empty_reason`, or
 * `error.code` among the documented codes — `invalid_argument` when the schema refused it — never
 * `tool_internal_error` (a defect) and never an exception.
 */
let snap: LoadedSnapshot;
const BAD_INPUT = new Set(['invalid_argument', 'scope_not_found']);

/** A valid input of each tool, to mutate. */
const valid = (): Record<ToolName, Record<string, unknown>> => {
  const d = snap.documents[0]!;
  return {
    list_documents: { title_contains: 'cell' },
    get_outline: { doc_ids: [d.doc_id] },
    search_blocks: { query: 'cell membrane' },
    list_blocks: { doc_id: d.doc_id, section_paths: [d.blocks[0]!.section_path] },
    scan_term: { term: 'cell', doc_ids: [d.doc_id] },
  };
};

function assertPayload(name: ToolName, p: ToolPayload, invalidInput: boolean): void {
  assert.ok(Number.isFinite(p.token_estimate) && p.token_estimate >= 0, `token_estimate ${p.token_estimate}`);
  assert.doesNotThrow(() => JSON.stringify(p));
  if (p.error) {
    assert.ok(ToolErrorCode.safeParse(p.error.code).success, p.error.code);
    assert.ok(BAD_INPUT.has(p.error.code), `${name}: ${p.error.code}: ${p.error.message}`);
    assert.equal(typeof p.error.message, 'string');
  } else assert.ok(!invalidInput, `${name} accepted an input its schema must refuse`);
}

const tool = fc.constantFrom(...TOOL_NAMES);

describe('fuzz: tool inputs', () => {
  before(async () => {
    const dir = new DataDir(tempDir());
    await addSources(dir, [fixture('markdown', 'cell-notes.md'), fixture('markdown', 'zh-history.md'), fixture('text', 'study-plan.txt')]);
    await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: { provider: 'none' }, embeddingApiKey: '', pool: createIngestPool(DEFAULT_INGEST_OPTIONS, null) });
    snap = (await loadActiveSnapshot(dir))!;
  });
  after(assertPrototypesClean);

  it('arbitrary JSON (any type, __proto__ / constructor keys, huge numbers, NaN strings) is a payload with a documented code', async () => {
    let results = 0;
    await fc.assert(
      fc.asyncProperty(tool, hostileJson, async (name, json) => {
        const input: unknown = JSON.parse(json);
        const p = await runTool(name, input, { snapshot: snap });
        // Only an object can be a tool input (list_documents takes `{}`, and null means "no input").
        const notObject = input !== null && (typeof input !== 'object' || Array.isArray(input));
        assertPayload(name, p, notObject);
        if (notObject) assert.equal(p.error?.code, 'invalid_argument');
        if (!p.error) results++;
        assertPrototypesClean();
      }),
      runs(600),
    );
    assert.ok(results > 0, 'some generated inputs are valid and give a result');
    recordTrials({ area: 'fuzzing', fault: 'tool inputs: arbitrary JSON through runTool', trials: trialsOf(600), outcome: 'documented error invalid_argument/scope_not_found or a result; no crash' }, __filename);
  });

  it('a valid input with one field of the wrong type, or one key too many, is invalid_argument', async () => {
    let results = 0;
    const known = ['doc_ids', 'doc_id', 'query', 'term', 'section_paths', 'source', 'lang', 'title_contains'];
    const mutation = fc.record({ key: fc.oneof(hostileKey, fc.constantFrom(...known)), value: hostileJson, extra: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(tool, mutation, async (name, { key, value, extra }) => {
        const base = valid()[name];
        const field = Object.keys(base)[0]!;
        // Either the tool's own field replaced by any JSON, or a key added (written as JSON text so `__proto__` stays an own key).
        const json = extra ? withMembers(JSON.stringify(base), [[key, value]]) : JSON.stringify({ ...base, [field]: JSON.parse(value) });
        const input = JSON.parse(json) as Record<string, unknown>;
        const p = await runTool(name, input, { snapshot: snap });
        const unknownKey = extra && Object.hasOwn(input, key) && !known.includes(key);
        assertPayload(name, p, unknownKey);
        if (unknownKey) assert.equal(p.error?.code, 'invalid_argument', `${name} with extra key ${JSON.stringify(key)}`);
        if (!p.error) results++;
        assertPrototypesClean();
      }),
      runs(600),
    );
    assert.ok(results > 0, 'some mutations keep the input valid and give a result');
    recordTrials({ area: 'fuzzing', fault: 'tool inputs: wrong types and extra keys (__proto__, constructor)', trials: trialsOf(600), outcome: 'documented error invalid_argument; no crash; no pollution' }, __filename);
  });

  it('through the harness: any Action for any tool is parsed, gated and run to one Observation of valid JSON, never an exception', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(tool, hostileJson, fc.boolean()), { minLength: 1, maxLength: 4 }), async (steps) => {
        const records: TraceRecord[] = [];
        const events: AgentEvent[] = [];
        const tracer = new Tracer('full', { write: (r) => records.push(r) });
        const loop: Loop = {
          o: { question: 'q', snapshot: snap, model: { complete: () => Promise.reject(new Error('no model in this test')) }, bundle: null as never, run: RunLimits.parse({ budgets: { max_tool_calls: 3 } }) },
          state: new RunState(),
          tracker: new ProgressTracker({ no_gain: 3, violations: 3 }),
          tracer,
          root: tracer.start('request', 'request', null),
          whitelist: TOOL_NAMES,
          lang: 'en',
          answerLang: 'en',
          emit: (e) => events.push(e),
          ledger: () => {},
          frameTokens: () => 100,
        };
        const turn = tracer.start('turn', 'turn', loop.root);
        for (const [name, json, wrapped] of steps) {
          const action = parseAction(`Thought: t\nAction: ${name}[${wrapped ? `{"input": ${json}}` : json}]`, TOOL_NAMES);
          if (action.kind === 'finish') assert.fail('a tool Action was read as a Finish');
          const before = loop.state.history.length;
          const gate = gateRequest(loop, turn, action, '');
          if (gate.kind === 'terminate') break;
          if (gate.kind === 'execute') await runToolStep(loop, turn, gate.tool, action.kind === 'tool' ? action.envelope.input : {}, gate.scope, {});
          assert.equal(loop.state.history.length, before + 1, 'each request ends in exactly one Observation');
          const obs = JSON.parse(loop.state.history.at(-1)!.replace(/^Observation: /, '')) as { harness_status: string; payload: ToolPayload | null };
          assert.ok(['ok', 'protocol_error', 'tool_unavailable', 'stop_required', 'context_budget_exceeded', 'request_budget_exceeded'].includes(obs.harness_status), obs.harness_status);
          if (obs.payload) assertPayload(gate.kind === 'execute' ? gate.tool : name, obs.payload, false);
        }
        assert.equal(loop.state.technical, null, 'no input may be a technical failure');
        assert.doesNotThrow(() => JSON.stringify(records));
        assertPrototypesClean();
      }),
      runs(250),
    );
    recordTrials({ area: 'fuzzing', fault: 'tool inputs: hostile JSON through parseAction, the request gate and runToolStep', trials: trialsOf(250), outcome: 'one Observation per request, documented harness_status and error codes; no crash' }, __filename);
  });
});
