import type { Unit, UnitKind } from '../parsed-document';

/** Splits decoded text into lines (CRLF, CR and LF all end a line). */
export function toLines(text: string): string[] {
  return text.replace(/\r\n?/g, '\n').split('\n');
}

const BLANK = /^\s*$/;

/**
 * A unit from source lines [start, end) (0-based), with blank lines and lines matching `drop` trimmed
 * from both ends, so the unit's text is exactly its 1-based line range. Returns null when nothing is left.
 */
export function unitFromLines(lines: readonly string[], start: number, end: number, section: number, kind: UnitKind, drop?: RegExp): Unit | null {
  const skip = (l: string) => BLANK.test(l) || (drop !== undefined && drop.test(l));
  while (start < end && skip(lines[start]!)) start++;
  while (end > start && skip(lines[end - 1]!)) end--;
  if (start >= end) return null;
  return {
    section,
    kind,
    text: lines.slice(start, end).join('\n'),
    location: { kind: 'lines', line_start: start + 1, line_end: end },
  };
}
