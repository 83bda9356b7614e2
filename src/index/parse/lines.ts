import type { Unit, UnitKind } from '../blocks/parsed-document';

/**
 * A decoded text as lines (CRLF, CR and LF all end a line), with the text itself normalised to LF so that
 * a run of lines is one slice of it rather than a join of copies.
 */
export class SourceLines {
  /** The text with every line break as LF. */
  readonly text: string;
  readonly lines: string[];
  private readonly starts: number[];

  constructor(decoded: string) {
    this.text = decoded.includes('\r') ? decoded.replace(/\r\n?/g, '\n') : decoded;
    this.lines = this.text.split('\n');
    this.starts = new Array<number>(this.lines.length);
    let at = 0;
    for (let i = 0; i < this.lines.length; i++) {
      this.starts[i] = at;
      at += this.lines[i]!.length + 1;
    }
  }

  /** Lines [start, end) (0-based) joined by LF, as they stand in the text. */
  slice(start: number, end: number): string {
    return this.text.slice(this.starts[start], this.starts[end - 1]! + this.lines[end - 1]!.length);
  }
}

const BLANK = /^\s*$/;

/** A line a unit does not start or end with: blank, or matching `drop`. */
function trimmed(line: string, drop: RegExp | undefined): boolean {
  return BLANK.test(line) || (drop !== undefined && drop.test(line));
}

/**
 * A unit from source lines [start, end) (0-based), with blank lines and lines matching `drop` trimmed
 * from both ends, so the unit's text is exactly its 1-based line range. Returns null when nothing is left.
 */
export function unitFromLines(source: SourceLines, start: number, end: number, section: number, kind: UnitKind, drop?: RegExp): Unit | null {
  const { lines } = source;
  while (start < end && trimmed(lines[start]!, drop)) start++;
  while (end > start && trimmed(lines[end - 1]!, drop)) end--;
  if (start >= end) return null;
  return {
    section,
    kind,
    text: source.slice(start, end),
    location: { kind: 'lines', line_start: start + 1, line_end: end },
  };
}
