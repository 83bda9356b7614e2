import type { ProviderFailure } from '../common/provider-failure';
import { EmbeddingError } from '../index/embed/embedding-client';
import { countTokens } from '../common/tokenizer';
import { payloadHash } from '../tools/payload-hash';
import { describeCall, runTool, summarizeCall } from '../tools/registry';
import type { ToolContext, ToolName } from '../tools/tool';
import { type ProgressFact, stepEvent } from '../shared/run-result';
import { type StepRecord, notAdmittedOutcome } from '../shared/step-record';
import type { Attributes } from '../shared/trace-model';
import type { Span } from '../trace/tracer';
import { admit } from './budget';
import { observationEntry } from './history-entry';
import type { Loop } from './loop-context';
import { observeHarness } from './request-gate';

/** Errors of the tools' execution layer (seed A.2): the tool could not do its work; not the model's mistake. */
const EXECUTION_ERRORS = new Set(['upstream_unavailable', 'collection_unavailable', 'tool_internal_error']);


/**
 * What a tool span records of its step, in every trace mode: its identity and scope key when it starts;
 * once it has ended, the outcome, counts and refs the replay compares (a refused result's too).
 */
function stepAttributes(step: StepRecord): Attributes {
  const o = step.outcome;
  if (!o) return { tool: step.tool, tool_call_id: step.tool_call_id, scope: step.scope_key };
  const count = step.blocks.length || step.doc_ids.length;
  return {
    outcome: o.error ? `error ${o.error.code}` : o.empty_reason ? `empty (${o.empty_reason})` : `${count} result(s)`,
    error_code: o.error?.code ?? null,
    empty_reason: o.empty_reason,
    result_count: count,
    refs: step.blocks.map((b) => b.ref),
    doc_ids: step.doc_ids,
  };
}

/** An ended step as verified progress (or a limitation) keeps it. */
function progressFact(step: StepRecord): ProgressFact {
  return { tool_call_id: step.tool_call_id, scope: step.scope, outcome: step.outcome! };
}

/**
 * Runs one admitted tool request: one tool call (never retried here: the one transient dependency, the
 * query embedding, is retried by its client under the retry policy, traced and counted as a retry
 * here), then budget admission of its result — with `used` counting every token the request
 * has spent, this turn's included. An admitted result enters the history whole and becomes verified
 * progress; a refused one is left out and the model is told which budget refused it; a result that
 * broke on an execution error takes that tool out of service for the rest of the run and is kept as
 * the run's technical failure. Query embeddings are counted as embedding tokens.
 */
export async function runToolStep(loop: Loop, turn: Span, tool: ToolName, input: Record<string, unknown>, scope: string, rating: Attributes): Promise<void> {
  const { state, tracker, o } = loop;
  state.counts.tool_calls++;
  const id = `call-${state.counts.tool_calls}`;
  const view = { snapshot: o.snapshot, questionScope: o.scope?.doc_ids };
  // The step, recorded once: the event, the span's attributes and the stored turn are derived from it.
  let step: StepRecord = { tool_call_id: id, tool, scope_key: scope, scope: describeCall(tool, input, view), outcome: null, blocks: [], doc_ids: [] };
  const call = loop.tracer.start('tool_call', tool, turn, { ...stepAttributes(step), input: input as Attributes, ...rating });
  loop.emit(stepEvent(step));
  let embeddingFailure: ProviderFailure | null = null;
  const embedQuery = o.embedQuery;
  const ctx: ToolContext = {
    snapshot: o.snapshot,
    scope: o.scope?.doc_ids,
    signal: o.signal,
    embedQuery: embedQuery
      ? async (query, signal) => {
          try {
            const e = await embedQuery(query, signal, (r) => {
              state.retries++;
              loop.tracer.start('retry', 'retry query embedding', call, { of: 'query_embedding', attempt: r.attempt + 1, after_error: r.error, delay_ms: r.delay_ms }).end();
            });
            state.spendEmbedding(e.tokens, e.estimated);
            return e;
          } catch (err) {
            if (err instanceof EmbeddingError && err.failure) embeddingFailure = err.failure;
            throw err;
          }
        }
      : undefined,
    onTrace: (e) => call.set({ search: e.detail as Attributes }),
  };
  const payload = await runTool(tool, input, ctx);
  const summary = summarizeCall(tool, input, payload, view);
  step = { ...step, outcome: summary.outcome, blocks: summary.briefs, doc_ids: summary.doc_ids };
  call.set({ ...stepAttributes(step), token_estimate: payload.token_estimate, payload_hash: payloadHash(payload), embedding_tokens: state.tokens.embedding });
  call.artifact('tool_payload', () => JSON.stringify(payload));
  const entry = observationEntry({ harness_status: 'ok', tool, tool_call_id: id, payload, message: null });
  const resultTokens = countTokens(entry) + 1;
  const frame = loop.frameTokens();
  const admission = admit(o.run.budgets, { context_tokens: frame + state.historyTokens, used_request_tokens: state.used }, resultTokens);
  loop.tracer
    .start('budget_decision', 'admission', call, {
      check: 'admission',
      admitted: admission.admitted,
      reason: admission.admitted ? null : admission.reason,
      result_tokens: resultTokens,
      context_tokens: frame + state.historyTokens,
      context_tokens_with_result: admission.context_tokens,
      used_request_tokens: state.used,
      reserve: o.run.budgets.finalization_reserve_tokens,
      max_context_tokens: o.run.budgets.max_context_tokens,
      max_request_tokens: o.run.budgets.max_request_tokens,
    })
    .end(admission.admitted ? 'ok' : 'error');
  loop.ledger();

  const execError = payload.error && EXECUTION_ERRORS.has(payload.error.code);
  if (!admission.admitted) {
    tracker.recordResult(id, scope, true);
    for (const b of step.blocks) state.refused.add(b.ref);
    step = { ...step, outcome: notAdmittedOutcome(summary.outcome, { reason: admission.reason, tokens: resultTokens }) };
    state.limitations.push({ kind: 'not_admitted', ...progressFact(step), documents: [] });
    if (admission.reason === 'request_budget_exceeded') state.requestBudgetSpent = true;
    call.end(payload.error ? 'error' : 'ok', { admitted: false, auto_information_gain: 'NO_GAIN' });
    loop.emit(stepEvent(step));
    const which = admission.reason === 'context_budget_exceeded' ? 'context' : 'request';
    observeHarness(loop, { harness_status: admission.reason, tool, tool_call_id: id, payload: null, message: `the result (${payload.token_estimate} tokens) does not fit the ${which} budget and was not added; ${which === 'context' ? 'narrow the scope or Finish' : 'no more tools: Finish now and state what is unfinished'}` });
    return;
  }
  if (execError) {
    // The tool could not work (an endpoint down, a defect): not evidence, not the model's fault, no gain either way.
    tracker.recordFailure(scope);
    state.unavailable.set(tool, payload.error!.message);
    state.limitations.push({ kind: 'tool_error', ...progressFact(step), documents: [] });
    state.technical = { reason: payload.error!.code.toUpperCase(), detail: payload.error!.message, failure: embeddingFailure };
  } else if (payload.error) {
    // A business error (a wrong id, a bad argument) is the model's to correct (quality seed §1.3): no
    // information gain either way (information-gain seed §3, 不产生), so two corrections in a row do not
    // saturate the run as if searches had found nothing.
    tracker.recordBusinessError(scope);
  } else {
    tracker.recordResult(id, scope, Boolean(payload.empty_reason));
    state.facts.push(progressFact(step));
    state.scopes.push(scope);
    for (const b of summary.returned) state.returned(b);
    for (const ref of summary.located) state.located.add(ref);
  }
  call.end(payload.error ? 'error' : 'ok', { admitted: true, ...(!payload.error && payload.empty_reason ? { auto_information_gain: 'NO_GAIN' } : {}) });
  loop.emit(stepEvent(step));
  state.addHistory(entry);
}
