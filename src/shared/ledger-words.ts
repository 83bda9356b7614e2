import type { AnswerWords } from './answer-words';
import type { UiLang } from './chat-protocol';
import { type Ledger, stopWords } from './run-result';

/** A count as a person of that language writes it (thousands separated). */
export function localeNumber(x: number, lang: UiLang): string {
  return x.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-US');
}

/**
 * The run's spending against its budgets and why it stopped, one item each, in the words' language: what
 * the chat view's ledger and @docqa's both list (the chat view adds its own items around them).
 */
export function ledgerItems(l: Ledger, stopReason: string | null, s: AnswerWords): string[] {
  const n = (x: number) => localeNumber(x, s.lang);
  return [
    s.ledgerChat(n(l.chat_tokens), n(l.max_request_tokens)),
    s.ledgerContext(n(l.largest_context), n(l.max_context_tokens)),
    s.ledgerTools(l.tool_calls, l.max_tool_calls),
    s.ledgerEmbedding(n(l.embedding_tokens)),
    s.ledgerModel(l.model_calls, l.retries),
    s.ledgerStop(stopWords(stopReason, s.lang) ?? s.stopReasonNone),
  ];
}
