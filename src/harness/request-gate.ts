import type { ToolName } from '../tools/tool';
import type { Attributes } from '../shared/trace-model';
import type { Span } from '../trace/tracer';
import type { ParsedAction } from './action-parser';
import { observationEntry } from './history-entry';
import type { Loop } from './loop-context';
import type { RequestDecision } from './progress-tracker';
import type { StopReason } from '../shared/run-result';
import { toolScopeKey, unlistedScopeKey } from '../tools/registry';

type Observation = {
  harness_status: 'protocol_error' | 'tool_unavailable' | 'stop_required' | 'context_budget_exceeded' | 'request_budget_exceeded';
  tool: string | null;
  tool_call_id: string | null;
  payload: null;
  message: string;
};

/**
 * Records one rejected request, once: the run's count, its rejected_request span and the event a UI
 * shows are written here together (the gate's rejections and the final round's alike).
 */
export function recordRejection(loop: Loop, turn: Span, tool: string | null, reason: string, message: string, attrs: Attributes = {}): void {
  loop.state.counts.rejected_requests++;
  loop.tracer.start('rejected_request', `rejected ${tool ?? 'action'}`, turn, { tool, reason, ...attrs }).end('error');
  loop.emit({ type: 'request_rejected', tool, reason, message });
}

/** Appends an Observation without payload to the history (the harness speaking, never a tool). */
export function observeHarness(loop: Loop, obs: Observation): void {
  loop.state.addHistory(observationEntry(obs));
}

export type GateOutcome =
  | { kind: 'execute'; tool: ToolName; scope: string }
  /** The request was rejected and the model told why: next turn. */
  | { kind: 'rejected' }
  | { kind: 'terminate'; reason: StopReason };

/**
 * Decides a turn's tool request (or malformed turn) before anything runs: the progress tracker's
 * rating, repeat and saturation checks, the tool-call limit (a budget stop: STOP_REQUIRED once, like
 * saturation), tools outside the whitelist and tools the run took out of service (both tool_unavailable). Every rejection is one rejected_request span and
 * one count — the same definition in counts and trace, STOP_REQUIRED and the terminating request included.
 */
export function gateRequest(loop: Loop, turn: Span, action: Exclude<ParsedAction, { kind: 'finish' }>, reasoning: string): GateOutcome {
  const { state, tracker, o } = loop;
  const toolName = action.kind === 'protocol_error' ? null : action.tool;
  const prev = action.kind === 'tool' ? action.envelope.previous_observation : undefined;
  const rating: Attributes = prev ? { rated_tool_call_id: prev.tool_call_id, information_gain: prev.information_gain } : {};
  let scope = '';
  let decision: RequestDecision;
  if (action.kind === 'protocol_error') decision = tracker.formatViolation();
  else if (action.kind === 'unavailable_tool') {
    scope = unlistedScopeKey(action.tool, action.envelope.input);
    decision = tracker.decideUnlisted(scope);
  } else {
    // The key is the tool's own: two requests share it exactly when the tool would answer both alike.
    scope = toolScopeKey(action.tool as ToolName, action.envelope.input, o.snapshot, o.scope?.doc_ids);
    if (state.counts.tool_calls >= o.run.budgets.max_tool_calls && !tracker.isSaturated()) tracker.budgetExhausted();
    decision = tracker.decide(scope, prev);
    if (decision.kind === 'execute' && state.unavailable.has(action.tool)) decision = tracker.rejectUnavailable();
  }
  const reject = (reason: string, message: string, attrs: Attributes = {}) => recordRejection(loop, turn, toolName, reason, message, { scope, ...attrs, ...rating });
  switch (decision.kind) {
    case 'execute':
      return { kind: 'execute', tool: (action as Extract<ParsedAction, { kind: 'tool' }>).tool as ToolName, scope };
    case 'terminate':
      reject('terminated', `${decision.reason}: a tool was requested after STOP_REQUIRED`, { stop_reason: decision.reason });
      return { kind: 'terminate', reason: decision.reason };
    case 'stop_required': {
      const message = `${decision.reason}: output Finish now with the evidence gathered, or state what is missing.`;
      reject('stop_required', message, { stop_reason: decision.reason });
      observeHarness(loop, { harness_status: 'stop_required', tool: toolName, tool_call_id: null, payload: null, message });
      return { kind: 'rejected' };
    }
    case 'reject_protocol': {
      let why = action.kind === 'protocol_error' ? `${action.violation}: ${action.message}` : decision.violation;
      // A reasoning model sometimes writes its Action in the reasoning, which is never read.
      if (action.kind === 'protocol_error' && action.violation === 'no_action' && /^[ \t]*Action[ \t]*[:：]/im.test(reasoning)) why += ' (an Action appeared in the reasoning, which is not read: write it in the answer)';
      const message = `${why}; expected previous_observation.tool_call_id: ${decision.expected_tool_call_id ?? 'none (leave previous_observation out)'}; allowed information_gain: ${decision.allowed_values.join(' | ')}`;
      reject('protocol_error', why, { violation: action.kind === 'protocol_error' ? action.violation : decision.violation, expected_tool_call_id: decision.expected_tool_call_id });
      observeHarness(loop, { harness_status: 'protocol_error', tool: toolName, tool_call_id: null, payload: null, message });
      return { kind: 'rejected' };
    }
    case 'reject_unavailable': {
      const message = `${toolName} is unavailable in this run (${state.unavailable.get(toolName!)}); use another tool or Finish`;
      reject('tool_unavailable', message);
      observeHarness(loop, { harness_status: 'tool_unavailable', tool: toolName, tool_call_id: null, payload: null, message });
      return { kind: 'rejected' };
    }
    case 'reject_unlisted': {
      const message = `${toolName} is not a tool of this run; the available tools are ${loop.whitelist.join(', ')}: use one of them or Finish`;
      reject('tool_unavailable', message);
      // The Observation names only tools of this DocQA (null here): a name the model made up, perhaps
      // copied from a document, stands in the message alone.
      observeHarness(loop, { harness_status: 'tool_unavailable', tool: null, tool_call_id: null, payload: null, message });
      return { kind: 'rejected' };
    }
    case 'reject_duplicate': {
      const message = 'this tool already ran with the same scope in this request; use its result above, change the scope, or Finish';
      reject('duplicate_scope', message);
      observeHarness(loop, { harness_status: 'protocol_error', tool: toolName, tool_call_id: null, payload: null, message });
      return { kind: 'rejected' };
    }
  }
}
