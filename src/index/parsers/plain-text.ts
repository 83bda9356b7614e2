import type { SectionDraft, Unit } from '../parsed-document';
import { PREAMBLE_TITLE } from '../parsed-document';
import { decodeText } from '../text-decode';
import type { DocumentParser } from './parser';
import { SourceLines, unitFromLines } from './lines';

const BLANK = /^\s*$/;
/** Setext-style underline: a title line followed by ===== (level 1) or ----- (level 2). */
const UNDERLINE = /^\s*(=+|-+)\s*$/;
/** 第三章 / 第2节 … standing alone on a line. */
const ZH_HEADING = /^\s*第[一二三四五六七八九十百千零〇两\d]+([章篇部卷编]|[节節])(\s|$|[:：、])/u;
/** "Chapter 3", "Part IV" standing alone on a line. */
const EN_HEADING = /^\s*(chapter|part)\s+(\d+|[ivxlc]+)\b/i;
const SENTENCE_END = /[.!?。！？;；,，]$/u;

/** A heading only where the text leaves no doubt; anything else stays a paragraph. */
function headingLevel(para: readonly string[]): number | null {
  if (para.length === 2) {
    const m = UNDERLINE.exec(para[1]!);
    if (m && m[1]!.length >= 3 && para[0]!.trim().length > 0) return m[1]!.startsWith('=') ? 1 : 2;
  }
  if (para.length === 1) {
    const line = para[0]!.trim();
    if (line.length > 60 || SENTENCE_END.test(line)) return null;
    const zh = ZH_HEADING.exec(line);
    if (zh) return /[节節]/u.test(zh[1]!) ? 2 : 1;
    if (EN_HEADING.test(line)) return 1;
  }
  return null;
}

export const plainTextParser: DocumentParser = {
  format: 'text',
  extensions: ['.txt', '.text'],
  async parse(bytes, ctx) {
    ctx.signal?.throwIfAborted();
    const { text, encoding } = decodeText(bytes);
    const source = new SourceLines(text);
    const { lines } = source;
    const sections: SectionDraft[] = [];
    const units: Unit[] = [];
    const stack: Array<{ level: number; index: number }> = [];
    let current = -1;
    let i = 0;
    while (i < lines.length) {
      if (BLANK.test(lines[i]!)) {
        i++;
        continue;
      }
      const start = i;
      while (i < lines.length && !BLANK.test(lines[i]!)) i++;
      const para = lines.slice(start, i);
      const level = headingLevel(para);
      if (level !== null) {
        while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
        sections.push({
          title: para[0]!.trim(),
          parent: stack.length ? stack[stack.length - 1]!.index : null,
          location: { kind: 'lines', line_start: start + 1, line_end: i },
        });
        current = sections.length - 1;
        stack.push({ level, index: current });
        continue;
      }
      if (current < 0) {
        sections.push({ title: PREAMBLE_TITLE, parent: null, location: null });
        current = 0;
      }
      const unit = unitFromLines(source, start, i, current, 'prose');
      if (unit) units.push(unit);
    }
    return { format: 'text', title: null, sections, units, encoding, pageCount: null };
  },
};
