import { DocQaError } from '../common/errors';
import type { ContextWindow } from '../common/served-window';
import { countTokens } from '../common/tokenizer';
import { TOOLS } from '../tools/registry';
import type { Attributes } from '../shared/trace-model';
import { NULL_SINK, type Span, Tracer } from '../trace/tracer';
import { parseAction } from './action-parser';
import type { AgentEvent, AgentResult, StopReason } from '../shared/run-result';
import { decideFinal, decideTurn, retryRoom } from './budget';
import type { AgentOptions, Loop } from './loop-context';
import type { ChatMessage } from './model-client';
import { callModel } from './model-turn';
import { ProgressTracker } from './progress-tracker';
import { questionLanguage } from './question-language';
import { renderPrompt, renderTemplate } from './prompt-bundle';
import { collectionStatusText, toolsPromptText } from './prompt-sections';
import { NO_CONVERSATION } from './conversation-context';
import { clarify, finishRun, giveUp, modelFailed, releaseRun } from './release';
import { modelTurnEntry } from './history-entry';
import { gateRequest, observeHarness, recordRejection } from './request-gate';
import { RunState } from './run-state';
import { narrowAction } from './run-scope';
import { runToolStep } from './tool-step';

export type { AgentOptions, ChatModel } from './loop-context';
export type { AgentEvent, AgentResult, Citation, ReleaseStatus } from '../shared/run-result';
export { collectionStatusText, toolsPromptText } from './prompt-sections';

/**
 * The agent loop (seed §10.2 with the information-gain protocol): the harness alone decides what enters
 * the model's context, when the run stops and what is released. Each turn: a budget decision (an
 * ordinary turn, the final round without tools, or a stop), one model call (retried once when
 * transient), the turn parsed into one Action, the request gated by the progress tracker, the tool run
 * and its result admitted or refused. Every step is a span on the run's tracer; every exit goes
 * through the release.
 */
export async function runAgent(o: AgentOptions): Promise<AgentResult> {
  if (!o.bundle.final) throw new DocQaError('prompt_bundle_invalid', `prompt bundle ${o.bundle.id} has no final-round template; load it through the prompt store`);
  const final = o.bundle.final;
  const whitelist = o.tools ?? TOOLS.map((t) => t.name);
  const tracer = o.tracer ?? new Tracer('metadata', NULL_SINK);
  const state = new RunState();
  const conversation = o.conversation ?? NO_CONVERSATION;
  const staticValues = { tools: toolsPromptText(whitelist), collection_status: collectionStatusText(o.snapshot, o.scope), question: o.question, conversation: conversation.text };
  const frames = new Map<boolean, number>();
  const root = tracer.start('request', 'request', null, { snapshot_id: o.snapshot.manifest.id, prompt_bundle: o.bundle.id, tools: [...whitelist], conversation_turns: conversation.turns, conversation_turns_dropped: conversation.dropped, conversation_tokens: conversation.tokens, ...(o.scope ? { scope_doc_ids: [...o.scope.doc_ids] } : {}) });
  if (o.contextWindow) windowSpan(tracer, root, o.contextWindow, o.run.budgets);
  const loop: Loop = {
    o,
    state,
    tracker: new ProgressTracker(o.run.thresholds),
    tracer,
    root,
    whitelist,
    lang: o.lang ?? o.bundle.language,
    answerLang: questionLanguage(o.question),
    emit: (e: AgentEvent) => o.onEvent?.(e),
    ledger: () => o.onEvent?.({ type: 'ledger', ledger: state.ledger(o.run.budgets, o.contextWindow) }),
    // The prompt around the history (the conversation section included) is counted once per run and
    // kind; each history entry once, when added.
    frameTokens: () => {
      let n = frames.get(state.finalRound);
      if (n === undefined) frames.set(state.finalRound, (n = countTokens(system('')) + countTokens(o.question)));
      return n;
    },
  };
  const system = (history: string) => (state.finalRound ? renderTemplate(final.text, { ...staticValues, tools: '', history }) : renderPrompt(o.bundle, { ...staticValues, history }));
  const m = o.snapshot.manifest;
  if (m.state === 'ready_partial') state.limitations.push({ kind: 'partial_collection', tool_call_id: null, scope: null, outcome: null, documents: m.failed_documents.map((f) => f.path) });
  let stopReason: StopReason | null = null;
  let turn: Span | null = null;
  const budgetSpan = (name: string, attrs: Record<string, string | number | boolean | null>, failed: boolean) =>
    tracer.start('budget_decision', name, root, { check: 'before_model_call', used_request_tokens: state.used, reserve: o.run.budgets.finalization_reserve_tokens, max_context_tokens: o.run.budgets.max_context_tokens, max_request_tokens: o.run.budgets.max_request_tokens, ...attrs }).end(failed ? 'error' : 'ok');

  try {
    for (;;) {
      turn?.end();
      turn = null;
      o.signal?.throwIfAborted();
      const context = loop.frameTokens() + state.historyTokens;
      let cap: number;
      if (!state.finalRound) {
        const d = state.requestBudgetSpent ? ({ kind: 'final_round' } as const) : decideTurn(o.run.budgets, { used: state.used, context });
        if (d.kind === 'stop') {
          stopReason = 'BUDGET_LIMIT_REACHED';
          budgetSpan('context budget', { context_tokens: context, decision: 'stop', reason: d.reason }, true);
          return giveUp(loop, 'CONTEXT_BUDGET_EXCEEDED', stopReason);
        }
        if (d.kind === 'final_round') {
          // One last call without tools: the reserve pays for it.
          stopReason = 'BUDGET_LIMIT_REACHED';
          budgetSpan('request budget', { context_tokens: context, decision: 'final_round', reason: 'request_budget_exceeded' }, false);
          if (!state.requestBudgetSpent) {
            const message = loop.lang === 'zh' ? '本次请求的 token 预算已用尽：不能再调用工具，请直接输出 Finish 并说明未完成部分。' : 'The request token budget is used up: no more tools; output Finish now and state what is unfinished.';
            observeHarness(loop, { harness_status: 'request_budget_exceeded', tool: null, tool_call_id: null, payload: null, message });
          }
          state.finalRound = true;
          continue;
        }
        cap = windowCap(o, d.max_output_tokens, context);
      } else {
        const d = decideFinal(o.run.budgets, { used: state.used, context });
        if (d.kind === 'stop') {
          // Even the final round does not fit: no answer is invented.
          budgetSpan('final round', { context_tokens: context, decision: 'stop', reason: d.reason }, true);
          return giveUp(loop, d.reason === 'context_budget_exceeded' ? 'CONTEXT_BUDGET_EXCEEDED' : 'REQUEST_BUDGET_EXCEEDED', stopReason);
        }
        cap = windowCap(o, d.max_output_tokens, context);
      }

      state.counts.agent_turns++;
      state.largestContext = Math.max(state.largestContext, context);
      turn = tracer.start('turn', `turn ${state.counts.agent_turns}`, root, { turn: state.counts.agent_turns, final_round: state.finalRound, context_tokens: context, max_output_tokens: cap });
      loop.emit({ type: 'turn_started', turn: state.counts.agent_turns, final_round: state.finalRound });
      const messages: ChatMessage[] = [
        { role: 'system', content: system(state.history.join('\n')) },
        { role: 'user', content: o.question },
      ];
      const retryCap = () => {
        const r = retryRoom(o.run.budgets, { used: state.used, context }, state.finalRound);
        return r.kind === 'retry' ? { ...r, max_output_tokens: windowCap(o, r.max_output_tokens, context) } : r;
      };
      const called = await callModel(loop, turn, messages, context, retryCap, cap);
      if (called.kind === 'failed') {
        turn.end('error');
        turn = null;
        return modelFailed(loop, called.error, called.attempts, called.retry_refused, stopReason);
      }
      const reply = called.reply;
      const text = reply.content.trim();
      state.addHistory(modelTurnEntry(text));

      const action = narrowAction(parseAction(text, whitelist), o.scope);
      turn.set({ action: action.kind === 'protocol_error' ? 'protocol_error' : action.kind === 'finish' ? (action.clarification ? 'clarify' : 'finish') : action.tool, ...(action.kind === 'protocol_error' ? { violation: action.violation } : {}) });
      if (action.kind === 'finish') {
        turn.end();
        turn = null;
        if (!action.clarification) return finishRun(loop, action.answer, stopReason);
        return clarify(loop, action.answer, stopReason);
      }
      if (state.finalRound) {
        // The final round offers no tools: anything but a Finish ends the run, deterministically.
        const tool = action.kind === 'protocol_error' ? null : action.tool;
        const reason = tool ? 'TOOL_REQUESTED_IN_FINAL_ROUND' : 'PROTOCOL_ERROR_IN_FINAL_ROUND';
        recordRejection(loop, turn, tool, reason.toLowerCase(), 'the final round offers no tools');
        return giveUp(loop, reason, stopReason);
      }
      const gate = gateRequest(loop, turn, action, reply.reasoning);
      if (gate.kind === 'terminate') {
        stopReason = gate.reason;
        return giveUp(loop, gate.reason, gate.reason);
      }
      if (gate.kind === 'rejected') {
        if (loop.tracker.stopReason) stopReason = loop.tracker.stopReason;
        continue;
      }
      const env = (action as Extract<typeof action, { kind: 'tool' }>).envelope;
      const rating: Attributes = env.previous_observation ? { rated_tool_call_id: env.previous_observation.tool_call_id, information_gain: env.previous_observation.information_gain } : {};
      await runToolStep(loop, turn, gate.tool, env.input, gate.scope, rating);
    }
  } catch (err) {
    if (o.signal?.aborted) return releaseRun(loop, { status: 'CANCELLED', reason: 'CANCELLED', detail: 'Stopped by the user.', failure: null }, null, stopReason);
    // A defect inside the harness (or a component it trusts) fails closed: no answer, the reason kept.
    turn?.end('error', { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    turn = null;
    return releaseRun(loop, { status: 'FAILED', reason: 'HARNESS_INTERNAL_ERROR', detail: `DocQA failed inside the harness (${err instanceof Error ? err.message : String(err)}); this is a defect, please report it.`, failure: null }, null, stopReason);
  } finally {
    turn?.end();
  }
}

/**
 * A served window holds the prompt and the answer together: a call's output is capped so that both fit
 * the context budget derived from it (without a served window, the budget bounds the prompt only).
 */
function windowCap(o: AgentOptions, cap: number, context: number): number {
  return o.contextWindow ? Math.max(1, Math.min(cap, o.run.budgets.max_context_tokens - context)) : cap;
}

/** The run's first budget decision when the chat model is served locally: the window, and the context budget taken from it. */
function windowSpan(tracer: Tracer, root: Span, w: ContextWindow, b: AgentOptions['run']['budgets']): void {
  tracer
    .start('budget_decision', 'context window', root, {
      check: 'served_window',
      server: w.server,
      model: w.model,
      configured_context_tokens: w.configured,
      served_window: w.served,
      window_source: w.source,
      model_max: w.model_max,
      server_default_window: w.server_default,
      max_context_tokens: b.max_context_tokens,
      reserve: b.finalization_reserve_tokens,
      decision: w.lowered ? 'lowered' : 'kept',
      reason: w.reason,
    })
    .end();
}

