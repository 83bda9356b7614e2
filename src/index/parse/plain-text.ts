import type { SectionDraft, Unit } from '../blocks/parsed-document';
import { PREAMBLE_TITLE } from '../blocks/parsed-document';
import { decodeText } from '../sources/text-decode';
import type { DocumentParser } from './parser';
import { SourceLines, unitFromLines } from './lines';

const BLANK = /^\s*$/;
/** Setext-style underline: a title line followed by ===== (level 1) or ----- (level 2). */
const UNDERLINE = /^\s*(=+|-+)\s*$/;
/** 第三章 / 第2节 … standing alone on a line. */
const ZH_HEADING = /^\s*第[一二三四五六七八九十百千零〇两\d]+([章篇部卷编]|[节節])(\s|$|[:：、])/u;
/**
 * The numbering Chinese documents give their outline below chapters and sections (GB/T 9704's 层次序数):
 * `一、` then `（一）`. (Arabic `1.` and `（1）` number lists as often as headings, so they are left alone.)
 */
const ZH_OUTLINE = /^\s*(?:[一二三四五六七八九十]{1,3}、|[（(][一二三四五六七八九十]{1,3}[）)])/u;
/** Punctuation inside a sentence: a heading is a phrase and has none. */
const INNER_PUNCTUATION = /[。！？；，,;]/u;
/** "Chapter 3", "Part IV" standing alone on a line. */
const EN_HEADING = /^\s*(chapter|part)\s+(\d+|[ivxlc]+)\b/i;
const SENTENCE_END = /[.!?。！？;；,，]$/u;
/**
 * A line that opens a paragraph with no blank line before it: Chinese text marks paragraphs by indenting
 * their first line (two ideographic spaces, U+3000, or ASCII spaces or a tab before Chinese), one
 * paragraph per line. English indentation is left alone: it is as often a quote or a wrapped list.
 */
const PARAGRAPH_INDENT = /^(?:\u3000|[ \t]+(?=[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]))/u;
/** The end of a sentence, closing quotes and brackets included: what a line before a heading ends with. */
const CLOSED = /[.!?。！？…」』”"）)]\s*$/u;

/**
 * The level of a Chinese heading line, with or without blank lines around it, as Chinese text sets them:
 * a chapter (`第三章 细胞`, 1), a section (`第二节`, 2), an outline number (`一、细胞膜`, 3; `（一）结构`, 4).
 * (`Chapter 3 of the book` may well begin a wrapped English line: that one needs blank lines.)
 */
function chineseHeadingLevel(line: string): number | null {
  // Tested on every line of a text file: the rare patterns first.
  const chapter = ZH_HEADING.exec(line);
  if (chapter) {
    const t = line.trim();
    return t.length <= 60 && !SENTENCE_END.test(t) ? (/[节節]/u.test(chapter[1]!) ? 2 : 1) : null;
  }
  const outline = ZH_OUTLINE.exec(line);
  if (!outline) return null;
  const t = line.trim();
  const title = line.slice(outline[0].length).trim();
  if (t.length > 40 || !/\p{L}/u.test(title) || SENTENCE_END.test(t) || INNER_PUNCTUATION.test(title)) return null;
  return /^\s*[（(]/u.test(line) ? 4 : 3;
}

/**
 * A heading line that stands alone: not underlined (setext is handled as such), and not one of a list of
 * lines of its level (a table of contents, or points numbered 一、二、三、, is a paragraph).
 */
function standaloneHeadingAt(lines: readonly string[], j: number): boolean {
  const level = chineseHeadingLevel(lines[j]!);
  if (level === null) return false;
  const next = lines[j + 1] ?? '';
  return !UNDERLINE.test(next) && chineseHeadingLevel(next) !== level && !(j > 0 && chineseHeadingLevel(lines[j - 1]!) === level);
}

/** Whether line `j` of a run of lines opens a paragraph or a chapter although no blank line comes before it. */
function opensParagraph(lines: readonly string[], j: number, headings: boolean): boolean {
  return PARAGRAPH_INDENT.test(lines[j]!) || (headings && standaloneHeadingAt(lines, j) && CLOSED.test(lines[j - 1]!));
}

/** A heading only where the text leaves no doubt; anything else stays a paragraph. */
function headingLevel(para: readonly string[]): number | null {
  if (para.length === 2) {
    const m = UNDERLINE.exec(para[1]!);
    if (m && m[1]!.length >= 3 && para[0]!.trim().length > 0) return m[1]!.startsWith('=') ? 1 : 2;
  }
  if (para.length === 1) {
    const line = para[0]!.trim();
    if (line.length > 60 || SENTENCE_END.test(line)) return null;
    const zh = chineseHeadingLevel(line);
    if (zh !== null) return zh;
    if (EN_HEADING.test(line)) return 1;
  }
  return null;
}

/** A text's paragraphs, and its headings where `headings` is set and the text leaves no doubt. */
function paragraphs(source: SourceLines, headings: boolean): { sections: SectionDraft[]; units: Unit[] } {
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
    i++;
    if (!(headings && standaloneHeadingAt(lines, start))) while (i < lines.length && !BLANK.test(lines[i]!) && !opensParagraph(lines, i, headings)) i++;
    const para = lines.slice(start, i);
    const level = headings ? headingLevel(para) : null;
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
  return { sections, units };
}

export const plainTextParser: DocumentParser = {
  format: 'text',
  extensions: ['.txt', '.text'],
  async parse(bytes, ctx) {
    ctx.signal?.throwIfAborted();
    const { text, encoding } = decodeText(bytes);
    const source = new SourceLines(text);
    let parsed = paragraphs(source, true);
    // Headings in plain text are a guess: a text they would leave without a word of its own (an outline
    // of 第一章 … lines) is all text instead, not an empty document.
    if (parsed.units.length === 0 && parsed.sections.length > 0) parsed = paragraphs(source, false);
    return { format: 'text', title: null, ...parsed, encoding, pageCount: null };
  },
};
