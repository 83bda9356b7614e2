import path from 'node:path';
import type { LoadedSnapshot } from '../index/snapshot-store';
import { countTokens } from '../index/tokenizer';
import { TOOLS, runTool, toolJsonSchema } from '../tools/registry';
import type { BlockView, ToolName, ToolPayload } from '../tools/tool';
import { parseAction } from './action-parser';
import { FinishStreamer } from './answer-stream';
import { type Budgets, admit } from './budget';
import { checkCitations } from './citations';
import { ChatError, type ChatMessage, type ChatResult } from './model-client';
import { ProgressTracker, type RequestDecision, type StopReason } from './progress-tracker';
import { type PromptBundle, renderPrompt } from './prompt-bundle';
import { scopeKey } from './scope-normalizer';
import crypto from 'node:crypto';
import { stableJson } from '../trace/run-manifest';
import type { Attributes } from '../trace/trace-model';
import { NULL_SINK, type Span, Tracer } from '../trace/tracer';

export type ReleaseStatus = 'SUCCESS' | 'FALLBACK' | 'FAILED' | 'CANCELLED';

/** A resolved citation: the cited block as the tools showed it, without its text. */
export type Citation = Omit<BlockView, 'text'>;

export interface AgentResult {
  release: { status: ReleaseStatus; reason: string | null };
  stop_reason: StopReason | null;
  answer: string | null;
  citations: Citation[];
  removed_citations: string[];
  counts: { agent_turns: number; tool_calls: number; model_calls: number; rejected_requests: number };
  tokens: { prompt: number; completion: number; embedding: number };
}

export type AgentEvent =
  | { type: 'turn_started'; turn: number }
  | { type: 'model_delta'; text: string }
  /** Text of the answer being written (inside Finish[...]), as it streams; the release carries the checked answer. */
  | { type: 'answer_delta'; turn: number; text: string }
  | { type: 'tool_requested'; tool: string; tool_call_id: string; scope: string }
  | { type: 'tool_result'; tool: string; tool_call_id: string; summary: string }
  | { type: 'request_rejected'; tool: string | null; reason: string }
  | { type: 'release'; status: ReleaseStatus; reason: string | null; answer: string | null };

/** What the loop needs from a model: one streamed completion (ChatClient in production). */
export interface ChatModel {
  complete(messages: readonly ChatMessage[], opts: { signal?: AbortSignal; onDelta?: (text: string) => void }): Promise<ChatResult>;
}

export interface AgentOptions {
  question: string;
  snapshot: LoadedSnapshot;
  embedQuery?: (q: string, signal?: AbortSignal) => Promise<Float32Array>;
  model: ChatModel;
  bundle: PromptBundle;
  budgets: Budgets;
  thresholds?: { noGain?: number; violations?: number };
  /** The run's tool whitelist, fixed for the run. */
  tools?: ReadonlyArray<ToolName>;
  signal?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
  /** Receives the run's spans (request → turn → llm/tool/rejected/budget/retry → release). */
  tracer?: Tracer;
}

interface Observation {
  harness_status: 'ok' | 'protocol_error' | 'tool_unavailable' | 'context_budget_exceeded' | 'request_budget_exceeded' | 'harness_internal_error' | 'stop_required';
  tool: string | null;
  tool_call_id: string | null;
  payload: ToolPayload | null;
  message: string | null;
}

/** Verified progress: what tools actually returned in this run, the only material a fallback may use. */
interface CheckedScope {
  tool: string;
  input: unknown;
  outcome: string;
}

/** The {tools} section of the prompt: each whitelisted tool's name, description and JSON Schema. */
export function toolsPromptText(names: ReadonlyArray<ToolName> = TOOLS.map((t) => t.name)): string {
  return TOOLS.filter((t) => names.includes(t.name))
    .map((t) => `- ${t.name}: ${t.description}\n  input schema: ${JSON.stringify(toolJsonSchema(t))}`)
    .join('\n');
}

/** The {collection_status} section: the pinned snapshot's id, completeness and failed documents. */
export function collectionStatusText(s: LoadedSnapshot): string {
  const m = s.manifest;
  return JSON.stringify({
    snapshot_id: m.id,
    completeness: m.state === 'ready_partial' ? 'partial' : 'complete',
    failed_documents: m.failed_documents.map((f) => ({ path: f.path, stage: f.stage, code: f.code, message: f.message })),
  });
}

function outcomeOf(p: ToolPayload): string {
  if (p.error) return `error ${p.error.code}`;
  if (p.empty_reason) return `empty (${p.empty_reason})`;
  const n = (p.blocks ?? p.hits ?? p.documents) as unknown[] | undefined;
  return n ? `${n.length} result(s)` : 'ok';
}

/** A fallback answer made only of what was verified in this run; none when nothing was. */
function fallbackAnswer(lang: 'zh' | 'en', checked: readonly CheckedScope[], titles: ReadonlySet<string>): string {
  const lines = checked.map((c) => `- ${c.tool} ${JSON.stringify(c.input)}: ${c.outcome}`);
  if (lang === 'zh') return `未能形成完整回答（证据不足）。本次已核查：\n${lines.join('\n')}${titles.size ? `\n涉及文档：${[...titles].join('、')}` : ''}`;
  return `No complete answer could be formed (insufficient evidence). Checked in this run:\n${lines.join('\n')}${titles.size ? `\nDocuments consulted: ${[...titles].join(', ')}` : ''}`;
}

function disclosePartial(answer: string, s: LoadedSnapshot, lang: 'zh' | 'en'): string {
  if (s.manifest.state !== 'ready_partial') return answer;
  const names = s.manifest.failed_documents.map((f) => path.basename(f.path));
  const missing = names.filter((n) => !answer.includes(n));
  if (missing.length === 0) return answer;
  return lang === 'zh' ? `${answer}\n\n（注意：以下文档未能入库，本回答未覆盖：${missing.join('、')}）` : `${answer}\n\n(Note: these documents could not be indexed and are not covered: ${missing.join(', ')})`;
}

/** The payload's identity for replay: same hash, same result, byte for byte. */
export function payloadHash(p: ToolPayload): string {
  return crypto.createHash('sha256').update(stableJson(p)).digest('hex');
}

/** What a tool span records about a result in every trace mode: counts, refs and (for search) ranks and scores. */
function resultAttributes(p: ToolPayload): Attributes {
  const items = ((p.blocks ?? p.hits) as Array<{ ref: string }> | undefined) ?? [];
  const docs = (p.documents as Array<{ doc_id: string }> | undefined) ?? [];
  return {
    outcome: outcomeOf(p),
    error_code: p.error?.code ?? null,
    empty_reason: (p.empty_reason as string | undefined) ?? null,
    result_count: items.length || docs.length,
    refs: items.map((b) => b.ref),
    doc_ids: docs.map((d) => d.doc_id),
    token_estimate: p.token_estimate,
    payload_hash: payloadHash(p),
  };
}

/**
 * The agent loop (seed §10.2 with the information-gain protocol): the harness alone decides what enters
 * the model's context, when the run stops and what is released. One model turn = Thought + one Action;
 * tool requests pass the progress tracker before anything runs; results enter the history only through
 * budget admission; transient model and tool failures are retried once; the answer's citations are
 * checked against the blocks this run returned. Every step is a span on the run's tracer.
 */
export async function runAgent(o: AgentOptions): Promise<AgentResult> {
  const whitelist = o.tools ?? TOOLS.map((t) => t.name);
  const tracker = new ProgressTracker({ noGainThreshold: o.thresholds?.noGain ?? 2, violationThreshold: o.thresholds?.violations ?? 2 });
  const tracer = o.tracer ?? new Tracer('metadata', NULL_SINK);
  const emit = (e: AgentEvent) => o.onEvent?.(e);
  const lang = o.bundle.language;
  const staticValues = { tools: toolsPromptText(whitelist), collection_status: collectionStatusText(o.snapshot), question: o.question };
  const history: string[] = [];
  const returned = new Map<string, Citation>();
  const checked: CheckedScope[] = [];
  const consulted = new Set<string>();
  const counts = { agent_turns: 0, tool_calls: 0, model_calls: 0, rejected_requests: 0 };
  const tokens = { prompt: 0, completion: 0, embedding: 0 };
  let finalRound = false;
  let stopReason: StopReason | null = null;
  const root = tracer.start('request', 'request', null, { snapshot_id: o.snapshot.manifest.id, prompt_bundle: o.bundle.id, tools: [...whitelist] });
  let turn: Span | null = null;

  const finish = (status: ReleaseStatus, reason: string | null, answer: string | null): AgentResult => {
    turn?.end(status === 'CANCELLED' ? 'cancelled' : 'ok');
    let text = answer;
    let citations: Citation[] = [];
    let removed: string[] = [];
    if (text !== null) {
      const c = checkCitations(text, new Set(returned.keys()));
      text = disclosePartial(c.answer, o.snapshot, lang);
      citations = c.cited.map((r) => returned.get(r)!);
      removed = c.removed;
    }
    counts.rejected_requests = tracker.rejectedRequests;
    const stop = stopReason ?? tracker.stopReason;
    const release = tracer.start('release', 'release', root, { status, reason, stop_reason: stop, citations: citations.map((c) => c.ref), removed_citations: removed });
    if (text !== null) release.artifact('answer', text);
    release.end(status === 'FAILED' ? 'error' : status === 'CANCELLED' ? 'cancelled' : 'ok');
    root.end(status === 'FAILED' ? 'error' : status === 'CANCELLED' ? 'cancelled' : 'ok', { status, reason, stop_reason: stop, ...counts, prompt_tokens: tokens.prompt, completion_tokens: tokens.completion });
    emit({ type: 'release', status, reason, answer: text });
    return { release: { status, reason }, stop_reason: stop, answer: text, citations, removed_citations: removed, counts, tokens };
  };
  /** The run cannot go on: a fallback from verified progress, or fail closed. */
  const giveUp = (reason: string): AgentResult =>
    checked.length ? finish('FALLBACK', 'INSUFFICIENT_EVIDENCE', fallbackAnswer(lang, checked, consulted)) : finish('FAILED', reason, null);
  // Each history entry is counted once, when it is added: re-counting the whole prompt every turn was
  // most of the harness's own time. The prompt around the history is counted once per run.
  let historyTokens = 0;
  const addHistory = (entry: string) => {
    history.push(entry);
    historyTokens += countTokens(entry) + 1;
  };
  const observe = (obs: Observation, json = JSON.stringify(obs)) => addHistory(`Observation: ${json}`);
  const frameTokens = countTokens(renderPrompt(o.bundle, { ...staticValues, history: '' })) + countTokens(o.question);
  const reject = (parent: Span, attrs: Attributes) => tracer.start('rejected_request', `rejected ${attrs.tool ?? 'action'}`, parent, attrs).end('error');

  try {
    for (;;) {
      turn?.end();
      turn = null;
      o.signal?.throwIfAborted();
      const system = renderPrompt(o.bundle, { ...staticValues, history: history.join('\n') });
      const messages: ChatMessage[] = [
        { role: 'system', content: system },
        { role: 'user', content: o.question },
      ];
      const contextTokens = frameTokens + historyTokens;
      const used = tokens.prompt + tokens.completion;
      const budgetAttrs = { context_tokens: contextTokens, used_request_tokens: used, reserve: o.budgets.finalization_reserve_tokens, max_context_tokens: o.budgets.max_context_tokens, max_request_tokens: o.budgets.max_request_tokens };
      if (contextTokens + o.budgets.finalization_reserve_tokens > o.budgets.max_context_tokens) {
        stopReason = 'BUDGET_LIMIT_REACHED';
        tracer.start('budget_decision', 'context budget', root, { ...budgetAttrs, check: 'before_model_call', decision: 'stop', reason: 'context_budget_exceeded' }).end('error');
        return giveUp('CONTEXT_BUDGET_EXCEEDED');
      }
      if (used + contextTokens + o.budgets.finalization_reserve_tokens > o.budgets.max_request_tokens) {
        stopReason = 'BUDGET_LIMIT_REACHED';
        if (!finalRound) {
          // One final round without tools, paid from the reserve.
          finalRound = true;
          tracer.start('budget_decision', 'request budget', root, { ...budgetAttrs, check: 'before_model_call', decision: 'final_round', reason: 'request_budget_exceeded' }).end();
          observe({ harness_status: 'request_budget_exceeded', tool: null, tool_call_id: null, payload: null, message: lang === 'zh' ? '本次请求的 token 预算已用尽：不能再调用工具，请直接输出 Finish 并说明未完成部分。' : 'The request token budget is used up: no more tools; output Finish now and state what is unfinished.' });
          continue;
        }
        // Even the reserve does not cover the final round: no answer is invented.
        if (used + contextTokens > o.budgets.max_request_tokens) {
          tracer.start('budget_decision', 'request budget', root, { ...budgetAttrs, check: 'before_model_call', decision: 'stop', reason: 'request_budget_exceeded' }).end('error');
          return giveUp('REQUEST_BUDGET_EXCEEDED');
        }
      }

      counts.agent_turns++;
      turn = tracer.start('turn', `turn ${counts.agent_turns}`, root, { turn: counts.agent_turns, final_round: finalRound, context_tokens: contextTokens });
      emit({ type: 'turn_started', turn: counts.agent_turns });
      let reply: ChatResult | null = null;
      for (let attempt = 1; attempt <= 2 && !reply; attempt++) {
        counts.model_calls++;
        const call = tracer.start('llm_call', attempt === 1 ? 'llm_call' : 'llm_call (retry)', turn, { attempt, messages: messages.length, context_tokens_estimate: contextTokens });
        call.artifact('prompt', () => JSON.stringify(messages));
        const answerStream = new FinishStreamer();
        const turnNo = counts.agent_turns;
        try {
          reply = await o.model.complete(messages, {
            signal: o.signal,
            onDelta: (text) => {
              emit({ type: 'model_delta', text });
              const answer = answerStream.push(text);
              if (answer) emit({ type: 'answer_delta', turn: turnNo, text: answer });
            },
          });
          call.artifact('model_output', reply.content);
          if (reply.reasoning) call.artifact('reasoning', reply.reasoning);
          call.end('ok', {
            finish_reason: reply.finish_reason,
            prompt_tokens: reply.usage?.prompt_tokens ?? null,
            completion_tokens: reply.usage?.completion_tokens ?? null,
            prompt_cache_hit_tokens: reply.usage?.prompt_cache_hit_tokens ?? null,
            prompt_cache_miss_tokens: reply.usage?.prompt_cache_miss_tokens ?? null,
          });
        } catch (err) {
          if (o.signal?.aborted) {
            call.end('cancelled');
            throw err;
          }
          const kind = err instanceof ChatError ? err.kind : 'failed';
          call.end('error', { error_kind: kind, error: err instanceof Error ? err.message : String(err) });
          if (!(err instanceof ChatError) || !err.retryable || attempt === 2) return giveUp(`MODEL_${kind.toUpperCase()}`);
          tracer.start('retry', 'retry llm_call', turn, { of: 'llm_call', attempt: attempt + 1, after_error: kind }).end();
        }
      }
      tokens.prompt += reply!.usage?.prompt_tokens ?? contextTokens;
      tokens.completion += reply!.usage?.completion_tokens ?? countTokens(reply!.content);
      const text = reply!.content.trim();
      addHistory(text);

      const action = parseAction(text, whitelist);
      turn.set({ action: action.kind === 'protocol_error' ? 'protocol_error' : action.kind === 'finish' ? (action.clarification ? 'clarify' : 'finish') : action.tool });
      if (action.kind === 'finish') {
        if (!action.clarification) return finish('SUCCESS', null, action.answer);
        // A request for missing context is a legal end, with or without tool calls: the user is asked,
        // and whatever was verified on the way is listed, never dressed up as an answer.
        const checkedText = checked.length ? `\n\n${fallbackAnswer(lang, checked, consulted).split('\n').slice(1).join('\n')}` : '';
        return finish('FALLBACK', 'MISSING_REQUIRED_CONTEXT', `${action.answer}${checkedText}`);
      }
      if (finalRound) {
        reject(turn, { tool: action.kind === 'tool' ? action.tool : null, reason: 'tool_requested_in_final_round' });
        return giveUp('TOOL_REQUESTED_IN_FINAL_ROUND');
      }

      let decision: RequestDecision;
      let scope = '';
      const rating: Attributes = action.kind === 'tool' && action.envelope.previous_observation ? { rated_tool_call_id: action.envelope.previous_observation.tool_call_id, information_gain: action.envelope.previous_observation.information_gain } : {};
      if (action.kind === 'protocol_error') decision = tracker.formatViolation();
      else {
        scope = scopeKey(action.tool, action.envelope.input);
        // The logical tool-call limit is a budget stop: STOP_REQUIRED once, like saturation, but its own reason.
        if (counts.tool_calls >= o.budgets.max_tool_calls && !tracker.isSaturated()) tracker.budgetExhausted();
        decision = tracker.decide(scope, action.envelope.previous_observation);
      }
      const toolName = action.kind === 'tool' ? action.tool : null;
      if (decision.kind === 'terminate') {
        stopReason = decision.reason;
        reject(turn, { tool: toolName, scope, reason: 'terminated', stop_reason: decision.reason, ...rating });
        emit({ type: 'request_rejected', tool: toolName, reason: 'terminated' });
        return giveUp(decision.reason);
      }
      if (decision.kind === 'stop_required') {
        stopReason = decision.reason;
        reject(turn, { tool: toolName, scope, reason: 'stop_required', stop_reason: decision.reason, ...rating });
        emit({ type: 'request_rejected', tool: toolName, reason: 'stop_required' });
        observe({ harness_status: 'stop_required', tool: toolName, tool_call_id: null, payload: null, message: `${decision.reason}: output Finish now with the evidence gathered, or state what is missing.` });
        continue;
      }
      if (decision.kind === 'reject_protocol') {
        const why = action.kind === 'protocol_error' ? `${action.violation}: ${action.message}` : decision.violation;
        reject(turn, { tool: toolName, scope, reason: 'protocol_error', violation: action.kind === 'protocol_error' ? action.violation : decision.violation, expected_tool_call_id: decision.expected_tool_call_id, ...rating });
        emit({ type: 'request_rejected', tool: toolName, reason: why });
        observe({
          harness_status: 'protocol_error',
          tool: toolName,
          tool_call_id: null,
          payload: null,
          message: `${why}; expected previous_observation.tool_call_id: ${decision.expected_tool_call_id ?? 'none (leave previous_observation out)'}; allowed information_gain: ${decision.allowed_values.join(' | ')}`,
        });
        continue;
      }
      if (decision.kind === 'reject_duplicate' || action.kind !== 'tool') {
        reject(turn, { tool: toolName, scope, reason: 'duplicate_scope', ...rating });
        emit({ type: 'request_rejected', tool: toolName, reason: 'duplicate scope' });
        observe({ harness_status: 'protocol_error', tool: toolName, tool_call_id: null, payload: null, message: 'this tool already ran with the same scope in this request; use its result above, change the scope, or Finish' });
        continue;
      }

      // Execute: a logical tool call; a transient failure is retried once without counting again.
      counts.tool_calls++;
      const id = `call-${counts.tool_calls}`;
      const call = tracer.start('tool_call', action.tool, turn, { tool: action.tool, tool_call_id: id, scope, input: action.envelope.input as Attributes, ...rating });
      emit({ type: 'tool_requested', tool: action.tool, tool_call_id: id, scope });
      const ctx = {
        snapshot: o.snapshot,
        embedQuery: o.embedQuery,
        signal: o.signal,
        onTrace: (e: { detail: Record<string, unknown> }) => call.set({ search: e.detail as Attributes }),
      };
      let payload = await runTool(action.tool as ToolName, action.envelope.input, ctx);
      if (payload.error?.retryable) {
        tracer.start('retry', `retry ${action.tool}`, call, { of: 'tool_call', attempt: 2, after_error: payload.error.code }).end();
        payload = await runTool(action.tool as ToolName, action.envelope.input, ctx);
      }
      const empty = Boolean(payload.error || payload.empty_reason);
      call.set(resultAttributes(payload));
      call.artifact('tool_payload', () => JSON.stringify(payload));
      const obs: Observation = { harness_status: 'ok', tool: action.tool, tool_call_id: id, payload, message: null };
      const obsJson = JSON.stringify(obs);
      const resultTokens = countTokens(obsJson);
      const admission = admit(o.budgets, { context_tokens: contextTokens + countTokens(text), used_request_tokens: used }, resultTokens);
      tracer
        .start('budget_decision', 'admission', call, { check: 'admission', admitted: admission.admitted, reason: admission.admitted ? null : admission.reason, result_tokens: resultTokens, ...budgetAttrs, context_tokens_with_result: admission.context_tokens })
        .end(admission.admitted ? 'ok' : 'error');
      if (!admission.admitted) {
        tracker.recordResult(id, scope, true);
        call.end(payload.error ? 'error' : 'ok', { admitted: false, auto_information_gain: 'NO_GAIN' });
        emit({ type: 'tool_result', tool: action.tool, tool_call_id: id, summary: `not admitted (${admission.reason})` });
        observe({ harness_status: admission.reason, tool: action.tool, tool_call_id: id, payload: null, message: `the result (${payload.token_estimate} tokens) does not fit the ${admission.reason === 'context_budget_exceeded' ? 'context' : 'request'} budget and was not added; narrow the scope or Finish` });
        continue;
      }
      tracker.recordResult(id, scope, empty);
      call.end(payload.error ? 'error' : 'ok', { admitted: true, ...(empty ? { auto_information_gain: 'NO_GAIN' } : {}) });
      for (const b of ((payload.blocks ?? payload.hits) as Array<Citation> | undefined) ?? []) {
        returned.set(b.ref, { ref: b.ref, doc_id: b.doc_id, block_id: b.block_id, doc_title: b.doc_title, source_label: b.source_label, section_path: b.section_path });
        consulted.add(b.doc_title);
      }
      checked.push({ tool: action.tool, input: action.envelope.input, outcome: outcomeOf(payload) });
      emit({ type: 'tool_result', tool: action.tool, tool_call_id: id, summary: outcomeOf(payload) });
      observe(obs, obsJson);
    }
  } catch (err) {
    if (o.signal?.aborted) return finish('CANCELLED', 'CANCELLED', null);
    // A defect inside the harness (or a component it trusts) fails closed: no answer, the reason kept.
    turn?.end('error', { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    return finish('FAILED', 'HARNESS_INTERNAL_ERROR', null);
  } finally {
    turn?.end();
  }
}
