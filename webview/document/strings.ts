/** The document view's words, English and Simplified Chinese; `{0}`-style placeholders. */
const EN = {
  exact: '{0}: the cited text is highlighted.',
  moved: '{0}: the file changed since it was indexed; the cited text was found elsewhere and is highlighted there.',
  none: '{0}: the cited text is no longer in the file as indexed; the spot where it was is highlighted.',
  gone: '{0}: this part of the file no longer exists (the file changed since it was indexed).',
  changed: 'The file changed since it was indexed: rebuild the index to update the citation.',
  chapterOf: 'Chapter {0} of {1}',
  slides: '{0} slides',
} as const;

export type StringKey = keyof typeof EN;

const ZH: Record<StringKey, string> = {
  exact: '{0}：引用的文字已高亮。',
  moved: '{0}：文件在建立索引后已修改；引用的文字在别处找到，已在那里高亮。',
  none: '{0}：文件中已找不到索引时的引用文字；已高亮它原来的位置。',
  gone: '{0}：文件的这一部分已不存在（文件在建立索引后已修改）。',
  changed: '文件在建立索引后已修改：重建索引即可更新引用。',
  chapterOf: '第 {0} 章，共 {1} 章',
  slides: '共 {0} 张幻灯片',
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
