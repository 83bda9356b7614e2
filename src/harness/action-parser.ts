import { z } from 'zod';

/** What a model turn says, or why it cannot be executed (a correctable protocol error, never evidence). */
export type ParsedAction =
  | { kind: 'finish'; thought: string; answer: string; clarification: boolean }
  | { kind: 'tool'; thought: string; tool: string; envelope: ToolEnvelope }
  | { kind: 'protocol_error'; violation: ActionViolation; message: string };

export const ACTION_VIOLATIONS = ['no_action', 'multiple_actions', 'missing_thought', 'fabricated_observation', 'bad_json', 'not_object', 'unknown_tool', 'bad_envelope'] as const;
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

const ACTION_LINE = /^[ \t]*Action:[ \t]*/gm;
const OBSERVATION_LINE = /^[ \t]*Observation:/m;
const THOUGHT = /^[ \t]*Thought:[ \t]*([\s\S]*?)(?=^[ \t]*Action:)/m;
const TOOL_CALL = /^([A-Za-z_][A-Za-z0-9_]*)\[([\s\S]*)\]\s*$/;
/**
 * A Finish that asks the user for missing context instead of answering (seed: a Draft declaring
 * missing_info). Both bundles' markers are accepted whatever the bundle's language.
 */
const CLARIFY_MARKER = /^(?:需要澄清|CLARIFY)[ \t]*[:：][ \t]*/i;

/**
 * Parses one model turn: exactly one `Thought:` followed by exactly one `Action: tool_name[{json}]` or
 * `Action: Finish[answer]`. The tool must be in the run's whitelist (fixed for the run); its JSON must be
 * an object of the envelope's shape. Anything else is a protocol error naming what was wrong.
 */
export function parseAction(text: string, whitelist: ReadonlyArray<string>): ParsedAction {
  const actions = [...text.matchAll(ACTION_LINE)];
  if (actions.length === 0) return { kind: 'protocol_error', violation: 'no_action', message: 'no "Action:" line: answer with Thought + Action: tool_name[{json}] or Action: Finish[answer]' };
  if (actions.length > 1) return { kind: 'protocol_error', violation: 'multiple_actions', message: `${actions.length} "Action:" lines: exactly one Action per turn` };
  if (OBSERVATION_LINE.test(text)) return { kind: 'protocol_error', violation: 'fabricated_observation', message: 'the turn contains an "Observation:": observations come from the system, never from the model' };
  const thought = THOUGHT.exec(text)?.[1]?.trim();
  if (!thought) return { kind: 'protocol_error', violation: 'missing_thought', message: 'a "Thought:" must come before the Action' };
  const action = text.slice(actions[0]!.index! + actions[0]![0].length).trim();
  const m = TOOL_CALL.exec(action);
  if (!m) return { kind: 'protocol_error', violation: 'bad_json', message: 'the Action must read tool_name[{json}] or Finish[answer]' };
  const [, name, inner] = m as unknown as [string, string, string];
  if (name === 'Finish') {
    const answer = inner.trim();
    const marker = CLARIFY_MARKER.exec(answer);
    return { kind: 'finish', thought, answer: marker ? answer.slice(marker[0].length).trim() : answer, clarification: Boolean(marker) };
  }
  if (!whitelist.includes(name)) return { kind: 'protocol_error', violation: 'unknown_tool', message: `unknown tool ${name}; available: ${whitelist.join(', ')}, or Finish` };
  let json: unknown;
  try {
    json = JSON.parse(inner);
  } catch (err) {
    return { kind: 'protocol_error', violation: 'bad_json', message: `the ${name} Action is not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { kind: 'protocol_error', violation: 'not_object', message: `the ${name} Action's JSON must be an object {"input": {...}}` };
  const envelope = ToolEnvelope.safeParse(json);
  if (!envelope.success) {
    const issue = envelope.error.issues[0]!;
    return { kind: 'protocol_error', violation: 'bad_envelope', message: `the ${name} Action must be {"input": {...}, "previous_observation"?: {"tool_call_id", "information_gain"}}: ${issue.path.join('.') || 'envelope'}: ${issue.message}` };
  }
  return { kind: 'tool', thought, tool: name, envelope: envelope.data };
}
