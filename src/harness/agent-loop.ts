import path from 'node:path';
import type { LoadedSnapshot } from '../index/snapshot-store';
import { countTokens } from '../index/tokenizer';
import { TOOLS, runTool, toolJsonSchema } from '../tools/registry';
import type { BlockView, ToolName, ToolPayload } from '../tools/tool';
import { parseAction } from './action-parser';
import { type Budgets, admit } from './budget';
import { checkCitations } from './citations';
import { ChatError, type ChatMessage, type ChatResult } from './model-client';
import { ProgressTracker, type RequestDecision, type StopReason } from './progress-tracker';
import { type PromptBundle, renderPrompt } from './prompt-bundle';
import { scopeKey } from './scope-normalizer';

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
  | { type: 'tool_requested'; tool: string; tool_call_id: string; scope: string }
  | { type: 'tool_result'; tool: string; tool_call_id: string; summary: string }
  | { type: 'request_rejected'; tool: string | null; reason: string }
  | { type: 'release'; status: ReleaseStatus; reason: string | null };

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

/**
 * The agent loop (seed §10.2 with the information-gain protocol): the harness alone decides what enters
 * the model's context, when the run stops and what is released. One model turn = Thought + one Action;
 * tool requests pass the progress tracker before anything runs; results enter the history only through
 * budget admission; transient model and tool failures are retried once; the answer's citations are
 * checked against the blocks this run returned.
 */
export async function runAgent(o: AgentOptions): Promise<AgentResult> {
  const whitelist = o.tools ?? TOOLS.map((t) => t.name);
  const tracker = new ProgressTracker({ noGainThreshold: o.thresholds?.noGain ?? 2, violationThreshold: o.thresholds?.violations ?? 2 });
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

  const finish = (status: ReleaseStatus, reason: string | null, answer: string | null): AgentResult => {
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
    emit({ type: 'release', status, reason });
    return { release: { status, reason }, stop_reason: stopReason ?? tracker.stopReason, answer: text, citations, removed_citations: removed, counts, tokens };
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
  const observe = (obs: Observation) => addHistory(`Observation: ${JSON.stringify(obs)}`);
  const frameTokens = countTokens(renderPrompt(o.bundle, { ...staticValues, history: '' })) + countTokens(o.question);

  try {
    for (;;) {
      o.signal?.throwIfAborted();
      const system = renderPrompt(o.bundle, { ...staticValues, history: history.join('\n') });
      const messages: ChatMessage[] = [
        { role: 'system', content: system },
        { role: 'user', content: o.question },
      ];
      const contextTokens = frameTokens + historyTokens;
      const used = tokens.prompt + tokens.completion;
      if (contextTokens + o.budgets.finalization_reserve_tokens > o.budgets.max_context_tokens) {
        stopReason = 'BUDGET_LIMIT_REACHED';
        return giveUp('CONTEXT_BUDGET_EXCEEDED');
      }
      if (used + contextTokens + o.budgets.finalization_reserve_tokens > o.budgets.max_request_tokens) {
        stopReason = 'BUDGET_LIMIT_REACHED';
        if (!finalRound) {
          // One final round without tools, paid from the reserve.
          finalRound = true;
          observe({ harness_status: 'request_budget_exceeded', tool: null, tool_call_id: null, payload: null, message: lang === 'zh' ? '本次请求的 token 预算已用尽：不能再调用工具，请直接输出 Finish 并说明未完成部分。' : 'The request token budget is used up: no more tools; output Finish now and state what is unfinished.' });
          continue;
        }
        // Even the reserve does not cover the final round: no answer is invented.
        if (used + contextTokens > o.budgets.max_request_tokens) return giveUp('REQUEST_BUDGET_EXCEEDED');
      }

      counts.agent_turns++;
      emit({ type: 'turn_started', turn: counts.agent_turns });
      let reply: ChatResult | null = null;
      for (let attempt = 1; attempt <= 2 && !reply; attempt++) {
        counts.model_calls++;
        try {
          reply = await o.model.complete(messages, { signal: o.signal, onDelta: (text) => emit({ type: 'model_delta', text }) });
        } catch (err) {
          if (o.signal?.aborted) throw err;
          if (!(err instanceof ChatError) || !err.retryable || attempt === 2) return giveUp(err instanceof ChatError ? `MODEL_${err.kind.toUpperCase()}` : 'MODEL_FAILED');
        }
      }
      tokens.prompt += reply!.usage?.prompt_tokens ?? contextTokens;
      tokens.completion += reply!.usage?.completion_tokens ?? countTokens(reply!.content);
      const text = reply!.content.trim();
      addHistory(text);

      const action = parseAction(text, whitelist);
      if (action.kind === 'finish') {
        if (!action.clarification) return finish('SUCCESS', null, action.answer);
        // A request for missing context is a legal end, with or without tool calls: the user is asked,
        // and whatever was verified on the way is listed, never dressed up as an answer.
        const checkedText = checked.length ? `\n\n${fallbackAnswer(lang, checked, consulted).split('\n').slice(1).join('\n')}` : '';
        return finish('FALLBACK', 'MISSING_REQUIRED_CONTEXT', `${action.answer}${checkedText}`);
      }
      if (finalRound) return giveUp('TOOL_REQUESTED_IN_FINAL_ROUND');

      let decision: RequestDecision;
      let scope = '';
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
        emit({ type: 'request_rejected', tool: toolName, reason: 'terminated' });
        return giveUp(decision.reason);
      }
      if (decision.kind === 'stop_required') {
        stopReason = decision.reason;
        emit({ type: 'request_rejected', tool: toolName, reason: 'stop_required' });
        observe({ harness_status: 'stop_required', tool: toolName, tool_call_id: null, payload: null, message: `${decision.reason}: output Finish now with the evidence gathered, or state what is missing.` });
        continue;
      }
      if (decision.kind === 'reject_protocol') {
        const why = action.kind === 'protocol_error' ? `${action.violation}: ${action.message}` : decision.violation;
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
        emit({ type: 'request_rejected', tool: toolName, reason: 'duplicate scope' });
        observe({ harness_status: 'protocol_error', tool: toolName, tool_call_id: null, payload: null, message: 'this tool already ran with the same scope in this request; use its result above, change the scope, or Finish' });
        continue;
      }

      // Execute: a logical tool call; a transient failure is retried once without counting again.
      counts.tool_calls++;
      const id = `call-${counts.tool_calls}`;
      emit({ type: 'tool_requested', tool: action.tool, tool_call_id: id, scope });
      const ctx = { snapshot: o.snapshot, embedQuery: o.embedQuery, signal: o.signal };
      let payload = await runTool(action.tool as ToolName, action.envelope.input, ctx);
      if (payload.error?.retryable) payload = await runTool(action.tool as ToolName, action.envelope.input, ctx);
      const empty = Boolean(payload.error || payload.empty_reason);
      const obs: Observation = { harness_status: 'ok', tool: action.tool, tool_call_id: id, payload, message: null };
      const admission = admit(o.budgets, { context_tokens: contextTokens + countTokens(text), used_request_tokens: used }, countTokens(JSON.stringify(obs)));
      if (!admission.admitted) {
        tracker.recordResult(id, scope, true);
        emit({ type: 'tool_result', tool: action.tool, tool_call_id: id, summary: `not admitted (${admission.reason})` });
        observe({ harness_status: admission.reason, tool: action.tool, tool_call_id: id, payload: null, message: `the result (${payload.token_estimate} tokens) does not fit the ${admission.reason === 'context_budget_exceeded' ? 'context' : 'request'} budget and was not added; narrow the scope or Finish` });
        continue;
      }
      tracker.recordResult(id, scope, empty);
      for (const b of ((payload.blocks ?? payload.hits) as Array<Citation> | undefined) ?? []) {
        returned.set(b.ref, { ref: b.ref, doc_id: b.doc_id, block_id: b.block_id, doc_title: b.doc_title, source_label: b.source_label, section_path: b.section_path });
        consulted.add(b.doc_title);
      }
      checked.push({ tool: action.tool, input: action.envelope.input, outcome: outcomeOf(payload) });
      emit({ type: 'tool_result', tool: action.tool, tool_call_id: id, summary: outcomeOf(payload) });
      observe(obs);
    }
  } catch (err) {
    if (o.signal?.aborted) return finish('CANCELLED', 'CANCELLED', null);
    throw err;
  }
}
