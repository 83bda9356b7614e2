import type { UiLang } from './chat-protocol';

/**
 * The words around an answer that the chat view and @docqa both show: the release, what was checked and
 * covered, removed citations, a partial knowledge base, the ledger and the trace (a release state's own
 * words are in release-states.ts). The chat view's string
 * tables (webview/chat/strings-*.ts) extend these; a unit test keeps English and Chinese in step.
 */
const EN = {
  /** The language of these words: the step records carry their words in both. */
  lang: 'en' as UiLang,
  removedHeading: 'Unverified sources removed',
  removedReason: { not_returned: 'no tool returned this block in this run', snippet_only: 'only a search snippet of it was seen, not its text', not_admitted: 'its result did not fit the context budget' } as Record<string, string>,
  checked: 'Checked',
  completeness: 'Scope covered',
  partialKb: (n: number, list: string, rest: number) => `${n} document${n === 1 ? '' : 's'} could not be indexed: ${list}; this answer is based on the other ${rest}.`,
  openTrace: 'Open trace',
  ledger: 'Ledger',
  ledgerChat: (used: string, max: string) => `chat tokens ${used} of ${max}`,
  ledgerContext: (used: string, max: string) => `largest context ${used} of ${max}`,
  ledgerTools: (used: number, max: number) => `tool calls ${used} of ${max}`,
  ledgerEmbedding: (n: string) => `embedding tokens ${n}`,
  ledgerModel: (calls: number, retries: number) => `model calls ${calls}, retries ${retries}`,
  ledgerStop: (why: string) => `stopped: ${why}`,
  ledgerEstimated: 'some counts are estimates (the provider sent no usage)',
  stopReasonNone: 'the answer was complete',
  ledgerScope: (titles: string[], of: number) => `searched only ${titles.length <= 3 ? titles.map((t) => `“${t}”`).join(', ') : `${titles.length} documents`} (${titles.length} of ${of})`,
};
export type AnswerWords = typeof EN;

const ZH: AnswerWords = {
  lang: 'zh',
  removedHeading: '已移除的未核验来源',
  removedReason: { not_returned: '本次运行中没有工具返回这个块', snippet_only: '只见到了检索片段，没有读到全文', not_admitted: '其结果超出了上下文预算' },
  checked: '已核查',
  completeness: '覆盖范围',
  partialKb: (n, list, rest) => `有 ${n} 篇文档未能入库：${list}；本回答基于其余 ${rest} 篇。`,
  openTrace: '打开追踪',
  ledger: '用量',
  ledgerChat: (used, max) => `对话 tokens ${used} / ${max}`,
  ledgerContext: (used, max) => `最大上下文 ${used} / ${max}`,
  ledgerTools: (used, max) => `工具调用 ${used} / ${max}`,
  ledgerEmbedding: (n) => `嵌入 tokens ${n}`,
  ledgerModel: (calls, retries) => `模型调用 ${calls} 次，重试 ${retries} 次`,
  ledgerStop: (why) => `停止原因：${why}`,
  ledgerEstimated: '部分数字是估计值（服务商未返回用量）',
  stopReasonNone: '回答已完成',
  ledgerScope: (titles, of) => `只检索了${titles.length <= 3 ? titles.map((t) => `《${t}》`).join('、') : ` ${titles.length} 篇文档`}（共 ${of} 篇中的 ${titles.length} 篇）`,
};

export const ANSWER_WORDS: Record<UiLang, AnswerWords> = { en: EN, zh: ZH };
