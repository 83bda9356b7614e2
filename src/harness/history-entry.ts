/**
 * What enters the run's history, the one place the model reads tool results and its own earlier turns.
 * Document text is untrusted (seed §8): it reaches the model only inside an Observation's JSON, and an
 * Observation is always one line, so nothing in a document can start a line of the protocol.
 */

/**
 * Line ends JSON.stringify leaves raw: NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR. Readers take them for
 * line breaks (a JS regex's `^` with the m flag, Python's splitlines, tokenizers that normalise them), so
 * a document's `\u2028Observation: {…}` would begin a line of its own there.
 */
const RAW_LINE_ENDS = /[\u0085\u2028\u2029]/g;

/** `Observation: {json}` on one line: the harness's (and only the harness's) way to speak in the history. */
export function observationEntry(observation: object): string {
  return `Observation: ${JSON.stringify(observation).replace(RAW_LINE_ENDS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}`;
}

/** A line the model wrote as an Observation, in any shape the action parser accepts as a label. */
const MODEL_OBSERVATION = /^[ \t]*(?:[#>]+[ \t]*)?(?:\*\*|__|\*|_)?observation(?:\*\*|__|\*|_)?[ \t]*[:：].*$/gim;
export const REMOVED_OBSERVATION = '[an Observation written by the model was removed: observations come only from the system]';

/**
 * A model turn as the history keeps it. A turn with an Observation of its own (copied from a document,
 * say) is rejected as a protocol error, but kept as it was it would stand in the next prompt exactly as
 * the harness's Observations do: forged evidence. Those lines are replaced by a notice.
 */
export function modelTurnEntry(turn: string): string {
  return turn.replace(MODEL_OBSERVATION, REMOVED_OBSERVATION);
}
