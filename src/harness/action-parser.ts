import { z } from 'zod';

/** What a model turn says, or why it cannot be executed (a correctable protocol error, never evidence). */
export type ParsedAction =
  | { kind: 'finish'; thought: string; answer: string; clarification: boolean }
  | { kind: 'tool'; thought: string; tool: string; envelope: ToolEnvelope }
  /** A well-formed call of a tool the run does not offer: tool_unavailable (Appendix A.1), not a protocol error. */
  | { kind: 'unavailable_tool'; thought: string; tool: string; envelope: ToolEnvelope }
  | { kind: 'protocol_error'; violation: ActionViolation; message: string };

export const ACTION_VIOLATIONS = [
  'no_action',
  'multiple_actions',
  'fabricated_observation',
  'bad_json',
  'not_object',
  'bad_envelope',
  'text_after_action',
  'unclosed_finish',
  'empty_answer',
] as const;
export type ActionViolation = (typeof ACTION_VIOLATIONS)[number];

export const InformationGain = z.enum(['GAINED', 'NO_GAIN']);
export type InformationGain = z.infer<typeof InformationGain>;

/**
 * The tool Action's JSON: `input` goes to the tool; `previous_observation` is the model's rating of the
 * last non-empty observation. The value of `information_gain` is checked later (bad_value is its own
 * progress violation), so any string is accepted here.
 */
export const ToolEnvelope = z
  .object({
    input: z.record(z.string(), z.unknown()),
    previous_observation: z.object({ tool_call_id: z.string(), information_gain: z.string() }).strict().optional(),
  })
  .strict();
export type ToolEnvelope = z.infer<typeof ToolEnvelope>;

/** The two forms a turn may take, shown in every correction. */
const EXPECTED = 'Thought: … then exactly one of  Action: tool_name[{"input": {…}}]  or  Action: Finish[answer]';

/**
 * A label at the start of a line as models really write it: `Action:`, `**Action:**`, `**Action**:`,
 * `### Action:`, `> Action:`, a full-width colon, any letter case.
 */
const LABEL = /^[ \t]*(?:[#>]+[ \t]*)?(?:\*\*|__|\*|_)?(thought|action|observation)(?:\*\*|__|\*|_)?[ \t]*[:：](?:\*\*|__|\*|_)?[ \t]*/gim;
const FENCE_LINE = /^[ \t]*(`{3,}|~{3,})[^\n`]*$/;
const OPEN_FENCE = /^\s*(?:`{3,}|~{3,})[\w+-]*[ \t]*\n/;
const CLOSE_FENCE = /\n?[ \t]*(?:`{3,}|~{3,})[ \t]*$/;
const NAME = /^([A-Za-z_][A-Za-z0-9_]*)[ \t]*/;
/**
 * A Finish that asks the user for missing context instead of answering (seed: a Draft declaring
 * missing_info). Both bundles' markers are accepted whatever the bundle's language.
 */
const CLARIFY_MARKER = /^(?:需要澄清|CLARIFY)[ \t]*[:：][ \t]*/i;

interface Label {
  kind: 'thought' | 'action' | 'observation';
  start: number;
  end: number;
}

/** A whole turn wrapped in one code fence (```text … ```) is read without it. */
function unwrapWholeFence(text: string): string {
  const t = text.trim();
  const lines = t.split('\n');
  if (lines.length >= 3 && /^(`{3,}|~{3,})[\w+-]*\s*$/.test(lines[0]!) && /^(`{3,}|~{3,})\s*$/.test(lines[lines.length - 1]!)) return lines.slice(1, -1).join('\n');
  return t;
}

/** Labels at line starts, with the fenced code blocks they sit in left out (code may quote a label). */
function labelsOutsideFences(text: string, from = 0): Label[] {
  const fenced = new Uint8Array(text.length + 1);
  let inFence = false;
  let at = 0;
  for (const line of text.split('\n')) {
    const isFence = FENCE_LINE.test(line);
    if (isFence) inFence = !inFence;
    else if (inFence) fenced.fill(1, at, at + line.length + 1);
    at += line.length + 1;
  }
  const out: Label[] = [];
  LABEL.lastIndex = from;
  for (let m = LABEL.exec(text); m; m = LABEL.exec(text)) {
    if (!fenced[m.index]) out.push({ kind: m[1]!.toLowerCase() as Label['kind'], start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/**
 * How deep an Action's JSON may nest. Tool inputs need 4 levels; the harness walks and writes the input
 * recursively (scope key, trace, history), and 10,000 levels overflowed the stack there.
 */
export const MAX_JSON_DEPTH = 32;

/** Index just past the JSON object starting at `start` (`{`), strings and escapes respected (-1 if unbalanced), and its deepest nesting. */
function scanJsonObject(text: string, start: number): { end: number; depth: number } {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') deepest = Math.max(deepest, ++depth);
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return { end: i + 1, depth: deepest };
      if (depth < 0) return { end: -1, depth: deepest };
    }
  }
  return { end: -1, depth: deepest };
}

/** Index just past the JSON object starting at `start` (`{`), strings and escapes respected; -1 if unbalanced. */
export function jsonObjectEnd(text: string, start: number): number {
  return scanJsonObject(text, start).end;
}

const error = (violation: ActionViolation, message: string): ParsedAction => ({ kind: 'protocol_error', violation, message: `${message}. Expected: ${EXPECTED}` });

/**
 * Whether text holds another step of the loop: an `Action: name[` or an `Observation: {` at a line start
 * outside code. Prose that merely starts a line with "Action:" (an answer about muscle action) is none.
 */
function otherStep(text: string): 'action' | 'observation' | null {
  for (const l of labelsOutsideFences(text)) {
    const next = text.slice(l.end, l.end + 200);
    if (l.kind === 'action' && /^[A-Za-z_][A-Za-z0-9_]*[ \t]*\[/.test(next)) return 'action';
    if (l.kind === 'observation' && /^\{/.test(next)) return 'observation';
  }
  return null;
}

/** What may follow an Action: white space, and the closing fence of a fence it was written in. */
function trailingProblem(rest: string): ParsedAction | null {
  const tail = rest.replace(CLOSE_FENCE, '').trim();
  if (!tail) return null;
  const step = otherStep(tail);
  if (step === 'action') return error('multiple_actions', 'more than one Action in the turn: exactly one Action per turn');
  if (step === 'observation') return error('fabricated_observation', 'the turn contains an "Observation:": observations come from the system, never from the model');
  return error('text_after_action', `text after the Action ("${tail.slice(0, 40)}${tail.length > 40 ? '…' : ''}"): the Action must end the turn`);
}

function parseFinish(thought: string, body: string): ParsedAction {
  const close = body.lastIndexOf(']');
  if (close < 0) return error('unclosed_finish', 'Finish[ is never closed with "]" (was the answer cut off?)');
  const problem = trailingProblem(body.slice(close + 1));
  if (problem) return problem;
  const answer = body.slice(0, close).trim();
  // Inside the answer, code may quote anything; outside code, another step of the loop is no answer.
  const step = otherStep(answer);
  if (step === 'action') return error('multiple_actions', 'another "Action:" inside the Finish answer: exactly one Action per turn');
  if (step === 'observation') return error('fabricated_observation', 'an "Observation:" inside the Finish answer: observations come from the system');
  const marker = CLARIFY_MARKER.exec(answer);
  const text = marker ? answer.slice(marker[0].length).trim() : answer;
  if (!text) return error('empty_answer', 'Finish[] holds no answer');
  return { kind: 'finish', thought, answer: text, clarification: Boolean(marker) };
}

/** A tool call in any of its written shapes; a name outside the whitelist is read as well, and said to be unavailable. */
function parseTool(thought: string, name: string, after: string, whitelist: ReadonlyArray<string>): ParsedAction {
  // The argument: `[{…}]`, the same with the JSON in a fence, or the JSON alone in a fence after the name.
  let rest = after;
  let bracketed = false;
  if (rest.startsWith('[')) {
    bracketed = true;
    rest = rest.slice(1);
  }
  rest = rest.replace(OPEN_FENCE, '').replace(/^\s+/, '');
  if (!rest.startsWith('{')) {
    if (rest.startsWith('[')) return error('not_object', `the ${name} Action's JSON must be an object {"input": {…}}`);
    return error('bad_json', `the ${name} Action must read ${name}[{"input": {…}}]`);
  }
  const { end, depth } = scanJsonObject(rest, 0);
  if (end < 0) return error('bad_json', `the ${name} Action's JSON is not closed (unbalanced braces)`);
  if (depth > MAX_JSON_DEPTH) return error('bad_json', `the ${name} Action's JSON nests ${depth} levels deep, more than ${MAX_JSON_DEPTH}`);
  let json: unknown;
  try {
    json = JSON.parse(rest.slice(0, end));
  } catch (err) {
    return error('bad_json', `the ${name} Action is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  let tail = rest.slice(end).replace(/^\s*(?:`{3,}|~{3,})[ \t]*(?=\n|\]|$)/, '').replace(/^\s+/, '');
  if (bracketed) {
    if (!tail.startsWith(']')) return error('bad_json', `the ${name} Action's JSON must be followed by "]"`);
    tail = tail.slice(1);
  }
  const problem = trailingProblem(tail);
  if (problem) return problem;
  const envelope = ToolEnvelope.safeParse(json);
  if (!envelope.success) {
    const issue = envelope.error.issues[0]!;
    const bare = !('input' in (json as object));
    const hint = bare ? `; the tool's fields go inside "input": ${name}[${JSON.stringify({ input: json })}]` : '';
    return error('bad_envelope', `the ${name} Action must be {"input": {…}, "previous_observation"?: {"tool_call_id", "information_gain"}}: ${issue.path.join('.') || 'envelope'}: ${issue.message}${hint}`);
  }
  if (!whitelist.includes(name)) return { kind: 'unavailable_tool', thought, tool: name, envelope: envelope.data };
  return { kind: 'tool', thought, tool: name, envelope: envelope.data };
}

/**
 * Parses one model turn (its content; a reasoning model's reasoning is never parsed). The protocol is
 * `Thought: …` then exactly one `Action: tool_name[{json}]` or `Action: Finish[answer]`, and models write
 * it in many shapes: labels in bold or with a full-width colon, prose before the Thought, the whole turn
 * or the JSON in a code fence, white space after the bracket, a Finish answer holding code blocks and
 * `]`. What leaves only one reading is accepted (a turn without a Thought too: the Action is clear);
 * anything else is a protocol error that names the problem and shows the expected form.
 */
export function parseAction(text: string, whitelist: ReadonlyArray<string>): ParsedAction {
  const turn = unwrapWholeFence(text);
  const labels = labelsOutsideFences(turn);
  const first = labels.findIndex((l) => l.kind === 'action');
  if (first < 0) return error('no_action', 'no "Action:" line');
  if (labels.slice(0, first).some((l) => l.kind === 'observation')) return error('fabricated_observation', 'the turn contains an "Observation:": observations come from the system, never from the model');
  const action = labels[first]!;
  const thoughtLabel = labels.slice(0, first).findLast((l) => l.kind === 'thought');
  const thought = thoughtLabel ? turn.slice(thoughtLabel.end, action.start).trim() : '';
  // The Action may sit on its own line with its call in a fence below it.
  const after = turn.slice(action.end).replace(OPEN_FENCE, '').replace(/^\s+/, '');
  const m = NAME.exec(after);
  if (!m) return error('bad_json', 'the Action must read tool_name[{json}] or Finish[answer]');
  const name = m[1]!;
  const rest = after.slice(m[0].length);
  if (name.toLowerCase() === 'finish') {
    if (!rest.startsWith('[')) return error('bad_json', 'a Finish must read Finish[answer]');
    return parseFinish(thought, rest.slice(1));
  }
  if (rest.startsWith('(')) return error('bad_json', `the ${name} Action uses brackets, not parentheses: ${name}[{"input": {…}}]`);
  return parseTool(thought, name, rest, whitelist);
}
