import { type BlockLocation, MAX_PAGE_REGIONS } from '../../shared/block-location';
import type { ChunkingParams } from '../model';
import type { Unit } from './parsed-document';
import { isLinkList } from './link-list';
import { splitSentences } from './sentences';
import { countJoined, countTokens, countWithTail, type TokenCount } from '../../common/tokenizer';

/** A block before it gets its id and section path. */
export interface DraftBlock {
  section: number;
  text: string;
  tokens: number;
  location: BlockLocation;
}

interface Piece extends DraftBlock {
  count: TokenCount;
}

/** Cuts `text[start,end)` at a code-point boundary (never between a surrogate pair). */
function safeCut(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return c >= 0xdc00 && c <= 0xdfff ? at - 1 : at;
}

/**
 * Splits a single run of text that is itself over the limit into pieces of at most maxTokens. Each cut is
 * found in a window a little past where the last piece's characters per token put it (doubled until it
 * holds more than maxTokens), never by counting the whole rest: on a long run with no sentence break
 * (unpunctuated classical Chinese is one) that was quadratic, 3 s for 80,000 characters.
 */
function hardSplit(text: string, maxTokens: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = 0;
  let charsPerToken = 1;
  while (start < text.length) {
    let width = Math.min(text.length - start, Math.ceil(maxTokens * charsPerToken * 1.25) + 16);
    let tokens = countTokens(text.slice(start, start + width));
    while (tokens <= maxTokens && start + width < text.length) {
      width = Math.min(text.length - start, width * 2);
      tokens = countTokens(text.slice(start, start + width));
    }
    if (tokens <= maxTokens) {
      out.push([start, text.length]);
      break;
    }
    let len = Math.max(1, Math.floor((width * maxTokens) / tokens));
    let end = safeCut(text, start + len);
    let count: number;
    while ((count = countTokens(text.slice(start, end))) > maxTokens && end > start + 1) {
      len = Math.max(1, Math.floor(len * 0.85));
      end = safeCut(text, start + len);
    }
    if (end <= start) end = start + 1;
    charsPerToken = (end - start) / Math.max(1, count);
    out.push([start, end]);
    start = end;
  }
  return out;
}

/** Natural split points of an oversized unit: sentences for prose, lines for everything else. */
function segments(unit: Unit): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let pos = 0;
  const parts = unit.kind === 'prose' ? splitSentences(unit.text) : unit.text.split(/(?<=\n)/);
  for (const p of parts) {
    out.push([pos, pos + p.length]);
    pos += p.length;
  }
  return out;
}

/**
 * Line number of each offset of a unit's text: its line breaks found once, then a binary search per
 * offset (counting breaks from the start for every piece was quadratic in a long unit).
 */
function lineFinder(text: string, firstLine: number): (offset: number) => number {
  const breaks: number[] = [];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) breaks.push(i);
  return (offset) => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (breaks[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return firstLine + lo;
  };
}

const BLANK_LINE = /^[ \t]*$/;

/** Length of the indentation every non-blank line of a code unit shares (an indented code block's four spaces). */
function sharedIndent(text: string): number {
  if (!/^[ \t]/.test(text)) return 0; // a fenced block at the margin, the usual case
  let indent: string | null = null;
  for (const line of text.split('\n')) {
    if (BLANK_LINE.test(line)) continue;
    const own = /^[ \t]*/.exec(line)![0];
    if (indent === null) indent = own;
    else {
      let k = 0;
      while (k < indent.length && k < own.length && indent[k] === own[k]) k++;
      indent = indent.slice(0, k);
    }
  }
  return indent?.length ?? 0;
}

/**
 * Code as its reader sees it: blank lines around it dropped and the unit's shared indentation (`cut`)
 * removed, every other space kept, the first line's too. Trimming code as prose is trimmed took the first
 * line's indentation alone (`def f():` then `        return`), and a piece of a split function began
 * out of its block.
 */
function codeText(raw: string, cut: number): string {
  if (cut === 0 && !/^\s/.test(raw)) return raw.trimEnd();
  const lines = raw.split('\n');
  let a = 0;
  let b = lines.length;
  while (a < b && BLANK_LINE.test(lines[a]!)) a++;
  while (b > a && BLANK_LINE.test(lines[b - 1]!)) b--;
  return lines
    .slice(a, b)
    // A piece cut inside a long line starts mid-line: only white space is ever removed.
    .map((l) => l.slice(Math.min(cut, /^[ \t]*/.exec(l)![0].length)))
    .join('\n')
    .trimEnd();
}

function pieceFrom(unit: Unit, start: number, end: number, lineAt: (offset: number) => number, cut: number): Piece | null {
  const raw = unit.text.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (trimmed.length === 0) return null;
  const text = unit.kind === 'code' ? codeText(raw, cut) : trimmed;
  const count = countWithTail(text);
  let location: BlockLocation = unit.location;
  if (unit.location.kind === 'lines') {
    const s = start + lead;
    const e = s + trimmed.length - 1;
    location = {
      kind: 'lines',
      line_start: lineAt(s),
      line_end: lineAt(e),
    };
  }
  return { section: unit.section, text, tokens: count.tokens, count, location };
}

/** A GFM table's delimiter row: `|---|:--:|`. */
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** A table unit's header and delimiter rows, when it starts with them. */
function tableHeader(unit: Unit): string | null {
  if (unit.kind !== 'table') return null;
  const first = unit.text.indexOf('\n');
  if (first < 0) return null;
  const second = unit.text.indexOf('\n', first + 1);
  const end = second < 0 ? unit.text.length : second;
  return TABLE_DELIMITER.test(unit.text.slice(first + 1, end)) ? unit.text.slice(0, end).trim() : null;
}

/**
 * A unit over max_tokens becomes pieces of about target_tokens, cut at sentences or lines. A long table's
 * later pieces repeat its header rows (their location stays the rows they hold): `| 2019 | 34.5 |`
 * means nothing without the columns' names.
 */
function splitUnit(unit: Unit, p: ChunkingParams): Piece[] {
  // Trimmed, so that joins can be counted from the parts (see countJoined); code keeps its indentation.
  const cut = unit.kind === 'code' ? sharedIndent(unit.text) : 0;
  const text = unit.kind === 'code' ? codeText(unit.text, cut) : unit.text.trim();
  const count = countWithTail(text);
  if (count.tokens <= p.max_tokens) {
    return text ? [{ section: unit.section, text, tokens: count.tokens, count, location: unit.location }] : [];
  }
  const header = tableHeader(unit);
  // Repeated only while it takes at most a quarter of a block. The pieces hold as many rows as without it
  // (as many blocks to embed), and leave room for it under the maximum.
  const headerTokens = header === null ? 0 : countTokens(header) + 1;
  const repeat = header !== null && headerTokens * 4 <= p.max_tokens;
  const room = p.max_tokens - headerTokens;
  const pieces = packPieces(unit, repeat ? { ...p, target_tokens: Math.min(p.target_tokens, room), max_tokens: room } : p, cut);
  if (!repeat) return pieces;
  return pieces.map((piece, i) => {
    if (i === 0) return piece;
    const withHeader = `${header}\n${piece.text}`;
    const c = countWithTail(withHeader);
    return c.tokens <= p.max_tokens ? { ...piece, text: withHeader, tokens: c.tokens, count: c } : piece;
  });
}

/** Pieces of at most `p.max_tokens`, packed up to `p.target_tokens`, cut at the unit's natural split points. */
function packPieces(unit: Unit, p: ChunkingParams, cut: number): Piece[] {
  // Break segments that are themselves too long, then pack greedily up to the target.
  const fine: Array<[number, number, number]> = [];
  for (const [s, e] of segments(unit)) {
    const t = countTokens(unit.text.slice(s, e));
    if (t <= p.max_tokens) fine.push([s, e, t]);
    else for (const [hs, he] of hardSplit(unit.text.slice(s, e), p.max_tokens)) fine.push([s + hs, s + he, countTokens(unit.text.slice(s + hs, s + he))]);
  }
  const lineAt = lineFinder(unit.text, unit.location.kind === 'lines' ? unit.location.line_start : 0);
  const pieces: Piece[] = [];
  let curStart = -1;
  let curEnd = -1;
  let curTokens = 0;
  const flush = () => {
    if (curStart < 0) return;
    const piece = pieceFrom(unit, curStart, curEnd, lineAt, cut);
    if (piece) {
      if (piece.tokens <= p.max_tokens) pieces.push(piece);
      else for (const [hs, he] of hardSplit(unit.text.slice(curStart, curEnd), p.max_tokens)) {
        const sub = pieceFrom(unit, curStart + hs, curStart + he, lineAt, cut);
        if (sub) pieces.push(sub);
      }
    }
    curStart = -1;
    curTokens = 0;
  };
  for (const [s, e, t] of fine) {
    if (curStart >= 0 && curTokens + t > p.target_tokens) flush();
    if (curStart < 0) curStart = s;
    curEnd = e;
    curTokens += t;
  }
  flush();
  return pieces;
}

/** Whether two units may share a block: a block never crosses a PDF page, an e-book chapter or a slide. */
function sameSpan(a: BlockLocation, b: BlockLocation): boolean {
  if (a.kind === 'page' && b.kind === 'page') return a.page === b.page;
  if (a.kind === 'chapter' && b.kind === 'chapter') return a.chapter === b.chapter;
  if (a.kind === 'slide' && b.kind === 'slide') return a.slide === b.slide;
  return a.kind === b.kind;
}

function mergeLocation(a: BlockLocation, b: BlockLocation): BlockLocation {
  if (a.kind === 'lines' && b.kind === 'lines') return { kind: 'lines', line_start: a.line_start, line_end: b.line_end };
  // Paragraphs of one scanned page merged: the block's regions are both's (capped as the schema caps them).
  if (a.kind === 'page' && b.kind === 'page' && (a.boxes || b.boxes)) return { ...a, boxes: [...(a.boxes ?? []), ...(b.boxes ?? [])].slice(0, MAX_PAGE_REGIONS) };
  if ((a.kind === 'paragraphs' || a.kind === 'chapter' || a.kind === 'slide') && b.kind === a.kind) return { ...a, last: b.last };
  return a;
}

/** Pieces gathered into one block, with the exact count of their join. */
interface OpenBlock {
  section: number;
  pieces: Piece[];
  count: TokenCount;
  location: BlockLocation;
  /** Its first piece is a link list (link-list.ts): only link lists join it. */
  links: boolean;
}

const JOIN = '\n\n';

function close(open: OpenBlock, out: DraftBlock[]): void {
  const text = open.pieces.length === 1 ? open.pieces[0]!.text : open.pieces.map((p) => p.text).join(JOIN);
  out.push({ section: open.section, text, tokens: open.count.tokens, location: open.location });
}

/**
 * Units → blocks. A block never crosses a section boundary (or a PDF page); a unit over max_tokens is
 * split; a tiny unit merges with its neighbour in the same section while the block stays within the
 * target, unless one of the two is a link list and the other is not (a "Read this in other languages"
 * line stays apart from the introduction after it, so that search can rank it below content). Every
 * block ends at or under max_tokens, with its exact token count.
 */
export function buildBlocks(units: readonly Unit[], params: ChunkingParams): DraftBlock[] {
  const out: DraftBlock[] = [];
  let open: OpenBlock | null = null;
  for (const unit of units) {
    for (const piece of splitUnit(unit, params)) {
      const links = isLinkList(piece.text);
      if (
        open &&
        open.section === piece.section &&
        open.links === links &&
        sameSpan(open.location, piece.location) &&
        (open.count.tokens < params.min_tokens || piece.tokens < params.min_tokens)
      ) {
        // countJoined needs a text that starts with no white space; indented code is counted whole.
        const joined = /^\s/.test(piece.text) ? countWithTail([...open.pieces, piece].map((x) => x.text).join(JOIN)) : countJoined(open.count, JOIN, piece.count);
        if (joined.tokens <= params.target_tokens) {
          open.pieces.push(piece);
          open.count = joined;
          open.location = mergeLocation(open.location, piece.location);
          continue;
        }
      }
      if (open) close(open, out);
      open = { section: piece.section, pieces: [piece], count: piece.count, location: piece.location, links };
    }
  }
  if (open) close(open, out);
  return out;
}
