/** The PDF page view's words, English and Simplified Chinese; `{0}`-style placeholders. */
const EN = {
  previous: 'Previous page',
  next: 'Next page',
  pageLabel: 'Page',
  ofPages: 'of {0}',
  loading: 'Opening {0}…',
  rendering: 'Rendering page {0}…',
  exact: 'Page {0}: the cited text is highlighted.',
  exactScan: 'Page {0}: a scanned page; the cited lines, as OCR read them, are highlighted.',
  approximate: 'Page {0}: approximate — the closest lines are highlighted; the cited text does not appear on this page exactly as indexed.',
  notFound: 'Page {0}: the cited text was not found on this page (it may be an image or a scan).',
  noHighlight: 'Page {0} of {1}.',
  clamped: 'The cited page {0} is not in this PDF ({1} pages); showing page {2}.',
  password: 'This PDF is password-protected; DocQA cannot show it.',
  invalid: 'This file is not a readable PDF: {0}',
  renderFailed: 'Page {0} could not be rendered: {1}',
  toolbar: 'PDF page navigation',
} as const;

export type StringKey = keyof typeof EN;

const ZH: Record<StringKey, string> = {
  previous: '上一页',
  next: '下一页',
  pageLabel: '页码',
  ofPages: '/ 共 {0} 页',
  loading: '正在打开 {0}…',
  rendering: '正在渲染第 {0} 页…',
  exact: '第 {0} 页：引用的文字已高亮。',
  exactScan: '第 {0} 页：扫描页；已高亮 OCR 识别出的引用行。',
  approximate: '第 {0} 页：近似匹配——已高亮最接近的几行；引用的文字与本页内容不完全一致。',
  notFound: '第 {0} 页：本页未找到引用的文字（可能是图片或扫描件）。',
  noHighlight: '第 {0} 页，共 {1} 页。',
  clamped: '引用的第 {0} 页不在此 PDF 中（共 {1} 页）；显示第 {2} 页。',
  password: '此 PDF 有密码保护，DocQA 无法显示。',
  invalid: '此文件不是可读的 PDF：{0}',
  renderFailed: '第 {0} 页无法渲染：{1}',
  toolbar: 'PDF 翻页',
};

let lang: 'en' | 'zh' = 'en';

export function setLang(l: 'en' | 'zh'): void {
  lang = l;
  document.documentElement.lang = l === 'zh' ? 'zh-CN' : 'en';
}

export function s(key: StringKey, ...args: Array<string | number>): string {
  const table: Record<StringKey, string> = lang === 'zh' ? ZH : EN;
  return table[key].replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] === undefined ? m : String(args[Number(i)])));
}
