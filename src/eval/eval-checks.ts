import type { AgentResult } from '../harness/agent-loop';
import { FAILURE_TYPES } from '../shared/eval-record';
import type { GoldCase } from './goldset';

export { FAILURE_TYPES };
export type FailureType = (typeof FAILURE_TYPES)[number];

export interface CaseFailure {
  type: FailureType;
  detail: string;
}

/** The deterministic checks of one case against one run. Text checks are case-insensitive. */
export function checkCase(c: GoldCase, result: AgentResult, toolsCalled: readonly string[]): CaseFailure[] {
  const failures: CaseFailure[] = [];
  const e = c.expect;
  if (e.status && result.release.status !== e.status) failures.push({ type: 'wrong_status', detail: `expected ${e.status}, got ${result.release.status}${result.release.reason ? ` (${result.release.reason})` : ''}` });
  if (e.reason !== undefined && result.release.reason !== e.reason) failures.push({ type: 'wrong_status', detail: `expected reason ${e.reason}, got ${result.release.reason}` });
  const cited = new Set(result.citations.map((x) => x.ref));
  for (const ref of e.cite) if (!cited.has(ref)) failures.push({ type: 'missing_citation', detail: ref });
  const answer = (result.answer ?? '').toLowerCase();
  for (const s of e.contains) if (!answer.includes(s.toLowerCase())) failures.push({ type: 'missing_text', detail: s });
  for (const s of e.not_contains) if (answer.includes(s.toLowerCase())) failures.push({ type: 'forbidden_text', detail: s });
  for (const t of e.tools) if (!toolsCalled.includes(t)) failures.push({ type: 'missing_tool_call', detail: t });
  return failures;
}
