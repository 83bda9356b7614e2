import { countTokens } from '../common/tokenizer';
import type { BlockView } from '../tools/tool';
import type { Budgets } from './budget';
import type { Citation, Counts, Ledger, Limitation, ProgressFact, ProgressSnapshot, Tokens } from '../shared/run-result';
import type { ProviderFailure } from '../common/provider-failure';
import type { ContextWindow } from '../common/served-window';

/** A technical reason the run could not do its work (a provider or a tool failed), kept for the release. */
export interface TechnicalFailure {
  reason: string;
  detail: string;
  failure: ProviderFailure | null;
}

/**
 * Everything one run has done so far, in one place: the history the model sees (each entry counted once,
 * when added), counts, tokens (every attempt's), what was returned and may be cited, the verified
 * progress a fallback is made of, and a technical failure to report. Only the loop's steps change it.
 */
export class RunState {
  readonly history: string[] = [];
  historyTokens = 0;
  readonly counts: Counts = { agent_turns: 0, tool_calls: 0, model_calls: 0, rejected_requests: 0 };
  readonly tokens: Tokens = { prompt: 0, completion: 0, embedding: 0, estimated: { chat: false, embedding: false } };
  retries = 0;
  largestContext = 0;
  finalRound = false;
  /** An admission was refused for the request budget: the next call is the final round. */
  requestBudgetSpent = false;
  /** Blocks whose full text reached the model: the citable ones. */
  readonly citable = new Map<string, Citation>();
  /** Blocks scan_term located (snippets): never citable. */
  readonly located = new Set<string>();
  /** Blocks of results the budget kept out of the context. */
  readonly refused = new Set<string>();
  readonly facts: ProgressFact[] = [];
  readonly scopes: string[] = [];
  readonly limitations: Limitation[] = [];
  /** Tools that failed for a technical reason after their retry: not offered again in this run. */
  readonly unavailable = new Map<string, string>();
  technical: TechnicalFailure | null = null;

  addHistory(entry: string): void {
    this.history.push(entry);
    this.historyTokens += countTokens(entry) + 1;
  }

  get used(): number {
    return this.tokens.prompt + this.tokens.completion;
  }

  /** One attempt's tokens: the provider's usage, else our count of what was sent and received. */
  spend(prompt: number, completion: number, estimated: boolean): void {
    this.tokens.prompt += prompt;
    this.tokens.completion += completion;
    if (estimated) this.tokens.estimated.chat = true;
  }

  spendEmbedding(tokens: number, estimated: boolean): void {
    this.tokens.embedding += tokens;
    if (estimated) this.tokens.estimated.embedding = true;
  }

  /** A block whose full text the model now has (first sighting decides the order of sources). */
  returned(b: BlockView): void {
    if (this.citable.has(b.ref)) return;
    this.citable.set(b.ref, { ref: b.ref, doc_id: b.doc_id, block_id: b.block_id, doc_title: b.doc_title, source_label: b.source_label, section_path: b.section_path });
  }

  ledger(b: Budgets, window?: ContextWindow): Ledger {
    return {
      chat_tokens: this.used,
      max_request_tokens: b.max_request_tokens,
      largest_context: this.largestContext,
      max_context_tokens: b.max_context_tokens,
      tool_calls: this.counts.tool_calls,
      max_tool_calls: b.max_tool_calls,
      model_calls: this.counts.model_calls,
      retries: this.retries,
      embedding_tokens: this.tokens.embedding,
      estimated: this.tokens.estimated.chat || this.tokens.estimated.embedding,
      ...(window ? { context_window: window } : {}),
    };
  }

  progress(stopReason: string | null): ProgressSnapshot {
    return {
      stop_reason: stopReason,
      sources: [...this.citable.values()].map((c) => ({ ref: c.ref, doc_title: c.doc_title, section_path: c.section_path })),
      facts: [...this.facts],
      scopes_checked: [...this.scopes],
      limitations: [...this.limitations],
    };
  }
}
