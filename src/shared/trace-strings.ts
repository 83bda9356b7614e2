/**
 * The trace viewer's words in Simplified Chinese, keyed by the English text (as vscode.l10n bundles are):
 * a webview has no vscode.l10n, so the host sends `vscode.env.language` and the view picks from here.
 * test/unit/trace-strings.test.ts checks that every t('…') of webview/trace/ has its translation.
 */
const ZH_CN: Record<string, string> = {
  '(incomplete trace: trace.json was never written)': '（不完整的 Trace：trace.json 从未写入）',
  'A metadata trace keeps no prompts, outputs or payloads; ask again with docqa.trace.mode set to "full" to see them.': 'metadata 模式的 Trace 不保存提示词、模型输出和工具 payload；把 docqa.trace.mode 设为 "full" 后重新提问即可查看。',
  'All {0} results identical.': '全部 {0} 个结果一致。',
  Artifacts: '附件（Artifact）',
  Citations: '引用',
  'Cases that moved': '结果变化的用例',
  'Copy run id': '复制运行 ID',
  Details: '详情',
  'Evaluation {0}': '评测 {0}',
  'Export to OTLP': '导出到 OTLP',
  'Loading…': '加载中…',
  Manifest: '运行清单',
  'No artifact contains “{0}”.': '没有附件包含“{0}”。',
  'No case changed.': '没有用例发生变化。',
  'Open the cited passage': '打开被引用的段落',
  'Open the trace of this run': '打开这次运行的 Trace',
  'Replay on snapshot {0}': '在快照 {0} 上重放',
  'Replay retrieval': '重放检索',
  'Replaying…': '重放中…',
  'Same manifest.': '运行清单相同。',
  'Search every artifact': '搜索全部附件',
  'Select a span to see its attributes.': '选择一个 Span 查看其属性。',
  'Selected span': '选中的 Span',
  'Show prompt of turn {0}': '查看第 {0} 轮的提示词',
  Span: 'Span',
  Spans: 'Span 列表',
  'The configuration changed during this evaluation ({0} configurations).': '本次评测过程中配置发生了变化（共 {0} 种配置）。',
  'The run made no tool calls.': '这次运行没有调用工具。',
  'This span has no artifacts.': '这个 Span 没有附件。',
  'This trace is partial: {0} records were lost.': '这份 Trace 不完整：丢失了 {0} 条记录。',
  'Trace actions': 'Trace 操作',
  Turn: '轮次',
  'Waterfall ({0})': '时间瀑布（{0}）',
  'What differs between the runs': '两次运行的差异',
  case: '用例',
  changed: '已变化',
  'decided by the harness': '由 Harness 判定',
  'decided by the model': '由模型判定',
  'embedding tokens': '向量化 token',
  exceeds: '超出',
  'exported {0} spans': '已导出 {0} 个 Span',
  'failure types': '失败类型',
  failures: '失败',
  fits: '未超出',
  'full trace': '完整 Trace',
  harness: 'Harness',
  identical: '一致',
  'metadata trace': '元数据 Trace',
  model: '模型',
  none: '无',
  'not re-run': '未重跑',
  'pass rate': '通过率',
  passed: '通过',
  points: '个百分点',
  runs: '运行',
  'same refs, payload differs': '块引用相同，payload 不同',
  'shared refs reordered': '共同的块引用顺序变了',
  'stop reason': '停止原因',
  stop: '停止',
  tokens: 'token',
  verdict: '结论',
  '{0} cases': '{0} 个用例',
  '{0} changed, {1} not re-run, of {2} tool calls.': '{2} 次工具调用中 {0} 次结果变化，{1} 次未重跑。',
  '{0} characters': '{0} 个字符',
  '{0} compared with {1}': '{0} 与 {1} 对比',
  '{0} repeats': '重复 {0} 次',
  '{0} unreadable record lines were skipped.': '跳过了 {0} 行无法读取的记录。',
  // Words chosen at run time (budget terms, manifest fields, case changes): DYNAMIC_KEYS lists them.
  context: '上下文',
  result: '结果',
  used: '已用',
  reserve: '预留',
  max_context_tokens: '上下文上限',
  max_request_tokens: '请求上限',
  app: '应用',
  build: '构建',
  'prompt bundle': '提示词包',
  'prompt hash': '提示词 hash',
  'prompt parent': '提示词父版本',
  'loop protocol': '循环协议',
  'tool contract': '工具契约',
  tools: '工具',
  'chat model': '对话模型',
  embedding: '向量模型',
  snapshot: '快照',
  budgets: '预算',
  thresholds: '阈值',
  'config hash': '配置 hash',
  improved: '变好',
  regressed: '变差',
  only_a: '仅在前者',
  only_b: '仅在后者',
};

/** Keys the view passes to t() as values, not literals (the test cannot find them by scanning). */
export const DYNAMIC_KEYS = ['context', 'result', 'used', 'reserve', 'max_context_tokens', 'max_request_tokens', 'app', 'build', 'prompt bundle', 'prompt hash', 'prompt parent', 'loop protocol', 'tool contract', 'tools', 'chat model', 'embedding', 'snapshot', 'budgets', 'thresholds', 'config hash', 'improved', 'regressed', 'only_a', 'only_b'] as const;

export const TRANSLATIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = { 'zh-cn': ZH_CN };

let table: Readonly<Record<string, string>> = {};

/** `vscode.env.language`: Simplified Chinese for zh-cn (and zh-hans), English otherwise. */
export function setLanguage(language: string): void {
  const l = language.toLowerCase();
  table = l === 'zh-cn' || l.startsWith('zh-hans') ? ZH_CN : {};
}

/** The message in the current language, `{0}`… replaced by the arguments. */
export function t(message: string, ...args: Array<string | number>): string {
  const text = table[message] ?? message;
  return text.replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] === undefined ? m : String(args[Number(i)])));
}
