/**
 * What the prompt-injection suite asserts about every chat request the harness sent (issue 24 item 5):
 * the prompt is the bundle's template with its slots filled by the harness, and the history slot holds
 * nothing but the model's own turns and Observation lines — each one line of JSON, its document text
 * inside string values of the payload only. Checked on the fake server's request log, whatever the
 * scripted model did.
 */
import assert from 'node:assert/strict';
import { modelTurnEntry } from '../../src/harness/history-entry';
import { renderPrompt, type PromptBundle, type PromptValues } from '../../src/harness/prompt-bundle';
import { TOOL_NAMES } from '../../src/tools/tool';

/** Every injected instruction in the corpus carries this word, so its text can be followed. */
export const CANARY = 'PWNED';
/** The Observation's fields, in the order the harness writes them. */
const OBSERVATION_KEYS = ['harness_status', 'tool', 'tool_call_id', 'payload', 'message'];
const HARNESS_STATUSES = new Set(['ok', 'protocol_error', 'tool_unavailable', 'stop_required', 'context_budget_exceeded', 'request_budget_exceeded']);
/** Every character some reader takes for the end of a line (JS regex `^` with m, Python's splitlines, Unicode). */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const LINE_END = /[\n\r\v\f\x1c-\x1e\u0085\u2028\u2029]/u;
/** A line labelled Observation in any shape the action parser reads as a label (bold, quoted, full-width colon). */
const OBSERVATION_LABEL = /(?:^|[\n\r\u0085\u2028\u2029])[ \t]*(?:[#>]+[ \t]*)?(?:\*\*|__|\*|_)?observation(?:\*\*|__|\*|_)?[ \t]*[:：]/iu;

export interface Observation {
  harness_status: string;
  tool: string | null;
  tool_call_id: string | null;
  payload: { blocks?: Array<{ ref: string; doc_id: string; text: string }>; hits?: Array<{ ref: string; doc_id: string; snippet: string }>; [k: string]: unknown } | null;
  message: string | null;
}

/** The prompt around the history: the template rendered with a sentinel where the history goes. */
export function promptFrame(bundle: PromptBundle, values: Omit<PromptValues, 'history'>): { prefix: string; suffix: string } {
  const SENTINEL = '\u0000history\u0000';
  const [prefix, suffix, ...more] = renderPrompt(bundle, { ...values, history: SENTINEL }).split(SENTINEL);
  assert.equal(more.length, 0);
  return { prefix: prefix!, suffix: suffix! };
}

/** Where the canary sits in a parsed Observation: paths of the string leaves holding it (keys must never hold it). */
function canaryPaths(v: unknown, at: string, out: string[]): string[] {
  if (typeof v === 'string') {
    if (v.includes(CANARY)) out.push(at);
  } else if (Array.isArray(v)) v.forEach((x, i) => canaryPaths(x, `${at}[${i}]`, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      assert.ok(!k.includes(CANARY), `document text became a JSON key at ${at}.${k}`);
      canaryPaths(x, `${at}.${k}`, out);
    }
  }
  return out;
}

/** One Observation line: a single line of JSON of the harness's shape, document text only in payload strings. */
function checkObservationLine(line: string, toolCallsSoFar: number): Observation {
  assert.ok(!LINE_END.test(line), `an Observation holds a raw line break (${JSON.stringify(line.match(LINE_END)?.[0])}): document text could start a line of its own`);
  const o = JSON.parse(line.slice('Observation: '.length)) as Observation;
  assert.deepEqual(Object.keys(o), OBSERVATION_KEYS);
  assert.ok(HARNESS_STATUSES.has(o.harness_status), o.harness_status);
  assert.ok(o.tool === null || (TOOL_NAMES as readonly string[]).includes(o.tool), `Observation of tool ${o.tool}`);
  if (o.tool_call_id !== null) {
    assert.match(o.tool_call_id, /^call-\d+$/);
    assert.ok(Number(o.tool_call_id.slice(5)) <= toolCallsSoFar);
  }
  for (const p of canaryPaths(o, '', [])) assert.match(p, /^\.payload\.(blocks|hits)\[\d+\]\.(text|snippet|section_path|doc_title)$/, `document text outside the payload's text: ${p}`);
  return o;
}

/**
 * Checks one request's system prompt against its frame and the model's own turns so far (as the harness
 * keeps them: trimmed), and returns its Observations in order. Anything in the history that is neither
 * one of those turns nor an Observation line of the right shape fails the check.
 */
export function checkPrompt(system: string, frame: { prefix: string; suffix: string }, modelTurns: readonly string[]): Observation[] {
  assert.ok(system.startsWith(frame.prefix), 'the prompt before the history is the template, filled by the harness');
  assert.ok(system.endsWith(frame.suffix), 'the prompt after the history is the template, filled by the harness');
  let rest = system.slice(frame.prefix.length, system.length - frame.suffix.length);
  const observations: Observation[] = [];
  let turn = 0;
  let calls = 0;
  while (rest.length) {
    if (rest.startsWith('\n')) rest = rest.slice(1);
    const next = modelTurns[turn] === undefined ? undefined : modelTurnEntry(modelTurns[turn]!);
    if (next !== undefined && rest.startsWith(next) && (rest.length === next.length || rest[next.length] === '\n')) {
      // The model's turn, as the harness keeps it: an Observation the model wrote never stands as one.
      assert.doesNotMatch(next, OBSERVATION_LABEL, 'a line the model wrote stands in the history as an Observation');
      rest = rest.slice(next.length);
      turn++;
      continue;
    }
    assert.ok(rest.startsWith('Observation: '), `the history holds only the model's turns and Observations; found: ${JSON.stringify(rest.slice(0, 120))}`);
    const end = rest.indexOf('\n');
    const line = end < 0 ? rest : rest.slice(0, end);
    rest = end < 0 ? '' : rest.slice(end);
    const o = checkObservationLine(line, calls + 1);
    if (o.harness_status === 'ok') calls++;
    observations.push(o);
  }
  assert.equal(turn, modelTurns.length, 'every turn of the model is in the history, in order');
  return observations;
}

/** The document texts an Observation carried (blocks' text, hits' snippets). */
export const textsOf = (o: Observation): string[] => [...(o.payload?.blocks ?? []).map((b) => b.text), ...(o.payload?.hits ?? []).map((h) => h.snippet)];
