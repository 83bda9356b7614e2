/**
 * Sentence boundaries from ICU (Intl.Segmenter): the Chinese marks 。！？, "e.g. lower case" and
 * "Fig. 3" without a hand-written rule list; only a title's abbreviation ("Dr. Li") needs one of ours.
 * Used to split long paragraphs and for a section's first sentence.
 */
const segmenter = new Intl.Segmenter('zh', { granularity: 'sentence' });

/**
 * Longest text handed to the segmenter at once. V8's segment iterator costs time in proportion to the
 * whole text at every step (measured: 1.3 µs a sentence in 2,048 characters, 10.7 µs in 32,768, and
 * 140,000 characters of short sentences took 15 s), so long texts are segmented window by window, and
 * many first sentences are found in batches of heads no longer than this.
 */
export const SEGMENT_WINDOW = 2048;

/**
 * Sentences of `text`, in order, joining back to it. Each window's last sentence may be cut by the
 * window's end, so the next window starts where it began; a window without a break inside is part of a
 * sentence that goes on into the next (the same sentences as one pass, tested on the fixtures and corpus).
 */
export function splitSentences(text: string): string[] {
  return joinContinued(icuSentences(text));
}

/**
 * A title's abbreviation (and initials after it) that ICU takes for a sentence end: V8's ICU has no
 * abbreviation suppressions (`-u-ss-standard` is ignored), so "Dr. A. Example spoke." was three
 * sentences and "Mr." a section's first sentence. Only words that are almost never a sentence's last:
 * "etc.", "U.S.", "Jr." and a lone initial often are, so they still end one.
 */
const ABBREVIATION_END = /(?:^|[\s(“"‘'])(?:Mr|Mrs|Ms|Mx|Dr|Drs|Prof|St|Mt|Gen|Col|Capt|Lt|Sgt|Rev|Hon|Gov|Sen|Rep|Pres|vs|cf|approx|e\.g|i\.e)\.(?:\s+\p{Lu}\.)*\s*$/u;

/** An exclamation or question mark, closing marks after it: ICU ends a sentence there whatever follows. */
const BANG_END = /[!?][)\]"'”’»]*\s*$/;
const LOWER_START = /^\p{Ll}/u;

/**
 * Whether ICU's `sentence` goes on into `next`: it ended at an abbreviation, or at a "!" or "?" inside
 * the sentence ("a feature and (hopefully!) want to test it": ICU's lower-case rule is for periods only).
 */
export function sentenceGoesOn(sentence: string, next: string): boolean {
  const end = sentenceEnd(sentence);
  return end === ABBREVIATION || (end === BANG && LOWER_START.test(next));
}

const ABBREVIATION = 1;
const BANG = 2;
/** How `sentence` ends: at an abbreviation, at a "!" or "?" (going on if the next word is lower case), or neither (0). */
function sentenceEnd(sentence: string): number {
  // Most sentences end in something else than a period, "!" or "?" (or their space): not worth the patterns.
  let end = sentence.length - 1;
  while (end >= 0 && sentence.charCodeAt(end) <= 32) end--;
  const c = sentence.charCodeAt(end);
  if (c === 46) return ABBREVIATION_END.test(sentence.length > 64 ? sentence.slice(-64) : sentence) ? ABBREVIATION : 0;
  return (c === 33 || c === 63 || c === 41 || c > 127 || c === 34 || c === 39 || c === 93) && BANG_END.test(sentence.slice(-8)) ? BANG : 0;
}

function joinContinued(sentences: string[]): string[] {
  const out: string[] = [];
  // The sentence being joined, as its parts and its last few characters: what decides is its end, and
  // reading the end of a string built by `+` flattens it (20,000 "Dr. " took 27 s).
  let parts: string[] = [];
  let tail = '';
  for (let k = 0; k < sentences.length; k++) {
    parts.push(sentences[k]!);
    tail = (tail + sentences[k]!).slice(-64);
    if (k + 1 < sentences.length && sentenceGoesOn(tail, sentences[k + 1]!)) continue;
    out.push(parts.length === 1 ? parts[0]! : parts.join(''));
    parts = [];
    tail = '';
  }
  return out;
}

function icuSentences(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (let pos = 0; pos < text.length; ) {
    const end = Math.min(text.length, pos + SEGMENT_WINDOW);
    const window = end - pos === text.length ? text : text.slice(pos, end);
    const parts: Intl.SegmentData[] = [];
    for (const s of segmenter.segment(window)) if (s.segment.length > 0) parts.push(s);
    if (end === text.length) {
      parts.forEach((s, k) => out.push(k === 0 ? pending + s.segment : s.segment));
      break;
    }
    if (parts.length === 1) {
      pending += window;
      pos = end;
      continue;
    }
    out.push(pending + parts[0]!.segment);
    pending = '';
    for (let k = 1; k < parts.length - 1; k++) out.push(parts[k]!.segment);
    pos += parts[parts.length - 1]!.index;
  }
  return out;
}

const FIRST_SENTENCE_MAX_CHARS = 200;
/** Only a text's head is segmented: a section's first block can be long. */
const HEAD_CHARS = FIRST_SENTENCE_MAX_CHARS * 2;
/** U+2029 PARAGRAPH SEPARATOR: ICU always breaks after it, and no rule looks back across it. */
const PARAGRAPH_SEPARATOR = '\u2029';

/** What a block with a marker to leave out can start with. */
const MARKER_START = /^[>*+\-|`~#\d]/;
const FENCE = /^(?:```|~~~)/;
const QUOTE_MARKS = /^[ \t]*(?:>[ \t]?)+/gm;
const LIST_MARKS = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/gm;
/** An Obsidian callout's type marker, `> [!note]`, `> [!tip]-`: its title (if any) is the prose. */
const CALLOUT = /^\[![\w-]+\][+-]?[ \t]*/;

/**
 * A block's opening as prose for its section's first sentence: Markdown's block markers (quote `>`, list
 * bullets and numbers, a task box, table pipes, a heading's `#`s in a quote, a callout's `[!type]`) are
 * not words, and a code block's fence line says only its language, so its first line of code stands in.
 */
function proseHead(text: string): { head: string; cut: boolean } {
  // Only the head is segmented, so only a little more than the head is looked at.
  let cut = text.length > HEAD_CHARS + 64;
  let t = (cut ? text.slice(0, HEAD_CHARS + 64) : text).trim();
  if (FENCE.test(t)) return { head: codeHead(t), cut: false };
  if (t.includes(':: ')) t = t.replace(PROPERTY_LINES, '').trim();
  // A code span that opens the text is words ("`*` - any value"), not a list marker once unquoted.
  const opensWithCode = t.charCodeAt(0) === 96;
  if (INLINE_MARK.test(t)) ({ plain: t, cut } = plainInline(text, t));
  if (opensWithCode || !MARKER_START.test(t)) return { head: unwrap(t), cut }; // prose, the usual case
  const nl = t.indexOf('\n');
  const quoted = (nl < 0 ? t : t.slice(0, nl)).replace(QUOTE_MARKS, '').replace(/^#{1,6}[ \t]+/, '');
  const first = quoted.replace(CALLOUT, '');
  const row = /^\|.*\|$/.test(first.trim()) ? first.trim().slice(1, -1).trim() : first;
  const rest = nl < 0 ? '' : t.slice(nl).replace(QUOTE_MARKS, '');
  // A callout's title line is a sentence of its own.
  const body = first === quoted ? unwrap(row + rest) : `${row}\n${unwrap(rest.slice(1))}`;
  return { head: body.replace(LIST_MARKS, '').trim(), cut };
}

/** Logseq property lines (`tags:: biology`, `id:: 64f0…` under an item): metadata, not words. */
const PROPERTY_LINES = /^[ \t]*(?:[-*][ \t]+)?[A-Za-z][\w-]*::[ \t].*(?:\n|$)/gm;

/**
 * A line break inside a paragraph, where the next line starts no list item, table row or heading: a
 * soft break, which ICU would take for a paragraph's end ("This document aims to answer that" was a
 * hard-wrapped note's first sentence).
 */
// Both start at the line break itself: a pattern that may start with white space is tried at every
// character, which cost more than the rest of the head. (Spaces left around a break are folded later.)
const SOFT_BREAK = /\n(?![ \t]*(?:[-*+][ \t]|\d{1,9}[.)][ \t]|[|#\n]|$))/g;
/** A soft break between two CJK characters, which renders as nothing. */
const CJK_SOFT_BREAK = /(?<=[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef])\n[ \t]*(?=[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef])/g;

/** Soft breaks as the space they render as (nothing between two CJK characters). */
function unwrap(text: string): string {
  if (!text.includes('\n')) return text;
  return text.replace(CJK_SOFT_BREAK, '').replace(SOFT_BREAK, ' ');
}

function opensWithFence(text: string): boolean {
  return FENCE.test(text.trimStart());
}

/** A fenced code block's first line of code, whole: code is not cut into sentences ("if (!" was one). */
function codeHead(fenced: string): string {
  const code = fenced.slice(fenced.indexOf('\n') + 1 || fenced.length).trimStart();
  const nl = code.indexOf('\n');
  return nl < 0 ? code : code.slice(0, nl);
}

/** Characters that can start inline markup. */
const INLINE_MARK = /[`*_[<!=%]/;
/** A link's destination, one level of parentheses inside allowed (Wikipedia's `(biology)`). */
const DESTINATION = String.raw`\((?:[^()\n]|\([^()\n]*\))*\)`;
/** An image, inline or by reference: a picture or a README's badge, no words of the text. */
const IMAGE = String.raw`!\[[^\]\n]*\](?:${DESTINATION}|\[[^\]\n]*\])`;
/**
 * Inline markup, in one pass from left to right so that a code span's content is never taken for markup:
 * 1 and 2 a code span (its words as written), 3 and 4 an Obsidian wikilink's target and alias
 * (`[[Page|alias]]`; an embed, `![[diagram.png]]`, shows no words), 5 a link's text (`[![npm][badge]](link)`
 * is an image in a link), 6 a reference link's text, 7 a highlight's (`==重点==`, as Obsidian and Typora
 * mark them). The rest carries no words: an image; an HTML or Obsidian (`%%…%%`) comment; an HTML tag
 * of prose (in lower case, as Markdown writes them: `i` made the scan slower) or a component's
 * (`<ScrimbaLink …>`, as VitePress and MDX pages embed them); strong and emphasis stars and underscores
 * (a star between spaces is arithmetic, an underscore inside a word is part of it).
 */
const MARKUP = new RegExp(
  [
    '(`+)([^`]*?)\\1',
    String.raw`!\[\[[^\]\n]*\]\]`,
    String.raw`\[\[([^\]|\n]+)(?:\|([^\]\n]+))?\]\]`,
    String.raw`\[((?:${IMAGE}|[^\]\n])*)\]${DESTINATION}`,
    String.raw`\[((?:${IMAGE}|[^\]\n])*)\]\[[^\]\n]*\]`,
    '==(?=[^\\s=])([^=\\n]*[^\\s=])==',
    IMAGE,
    '<!--[\\s\\S]*?(?:-->|$)',
    '%%[\\s\\S]*?%%',
    String.raw`<\/?(?:a|abbr|b|big|br|center|code|del|details|div|em|font|h[1-6]|i|img|ins|kbd|mark|p|picture|s|small|source|span|strong|sub|summary|sup|u|[A-Z][A-Za-z0-9]*)\b[^>]*>`,
    String.raw`\*\*\*?|(?<![^\s(])\*(?=[^\s*])|(?<=[^\s*])\*(?![^\s).,;:!?])`,
    // Letters and digits: any character past ASCII counts as one (no `u` flag: a third faster).
    String.raw`(?<![0-9A-Za-z_\u0080-\uffff])_{1,3}(?=[^\s_])|(?<=[^\s_])_{1,3}(?![0-9A-Za-z_\u0080-\uffff])`,
  ]
    .join('|')
    // Only where markup can start: the scan skips other characters quickly.
    .replace(/^/, '(?=[`![<*_=%])(?:')
    .concat(')'),
  'g',
);

/** The most of a text read for one head's words, however much markup it holds. */
const MARKUP_MAX_CHARS = 8192;

/** Text with its inline markup replaced by the words it shows; a link's text may hold markup of its own. */
function worded(text: string): string {
  return text.replace(MARKUP, (_m, _ticks?: string, code?: string, page?: string, alias?: string, link?: string, ref?: string, mark?: string) => {
    if (code !== undefined) return code;
    // Obsidian shows a wikilink as its alias, else its target ("Note#Heading" as "Note > Heading").
    if (page !== undefined) return alias?.trim() ?? page.trim().replace(/#/g, ' > ');
    return link || ref || mark ? worded((link || ref || mark)!) : '';
  });
}

/**
 * A head as the words a reader sees: a section's first sentence summarises it in outlines, where "[!["
 * (a README's badges, cut at ICU's "!") or "**Parameters:**" said nothing. Blocks keep their source.
 * Markup shrinks a head, so more of the text is taken until the words fill a first sentence's length
 * (a link cut at the end then lies past it).
 */
function plainInline(text: string, head: string): { plain: string; cut: boolean } {
  for (let take = head.length; ; ) {
    const plain = worded(head).trim();
    // Enough words, and no link cut by the head's end among them (its "](" left as it was).
    const enough = plain.length >= FIRST_SENTENCE_MAX_CHARS + 64 && !plain.slice(0, FIRST_SENTENCE_MAX_CHARS + 64).includes('](');
    if (enough || take >= Math.min(text.length, MARKUP_MAX_CHARS)) return { plain, cut: take < text.length };
    take = Math.min(text.length, MARKUP_MAX_CHARS, take * 2);
    head = text.slice(0, take).trim();
  }
}

/**
 * Bullet glyphs a PDF's lists (and plain-text notes) start items with, Word's private-use Symbol and
 * Wingdings bullets included; not words.
 */
export const BULLET_GLYPH = /^[•◦▪▫●○■□►▸▹➢➤✓✔‣⁃\uF0A7\uF0B7\uF0D8\uF0FC][ \t]*/u;

function tidy(sentence: string): string {
  const s = sentence.replace(/\s+/g, ' ').trim().replace(BULLET_GLYPH, '');
  return s.length > FIRST_SENTENCE_MAX_CHARS ? `${s.slice(0, FIRST_SENTENCE_MAX_CHARS)}…` : s;
}

/** The first sentence of one text (see firstSentences). */
export function firstSentence(text: string): string {
  return firstSentences([text])[0]!;
}

/**
 * `firstSentence` of many texts from one segmenter over their heads joined by paragraph separators (a
 * window's worth at a time): each `segment()` call costs ICU a fresh break iterator (~5 µs, a twentieth of
 * a document's ingestion), and
 * `containing(start)` finds one head's first sentence without walking the rest of that head (walking every
 * sentence was a sixth of a document's ingestion). Same results (tested against `firstSentence`).
 */
const WORDY = /[\p{L}\p{N}]/u;

/** Text compared loosely with a title: width forms, case, white space, marks at either end and a section number aside. */
function loose(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, '')
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
    .replace(SECTION_NUMBER, '');
}
/** A section number before a title's words: an outline's "1.2 Motivation" is the page's "Motivation". */
const SECTION_NUMBER = /^(?:\d+\.)*\d+\.?(?=\p{L})/u;

/**
 * Whether `text` is just `title`, compared loosely. Lengths first: normalising every section's first
 * sentence cost more than finding it.
 */
export function isTitleText(text: string, title: string): boolean {
  return text.length <= title.length + 16 && loose(text) === loose(title);
}

/** The text after its first line when that line is the title (a soft break would join them). */
function afterTitleLine(text: string, title: string): string {
  const nl = text.indexOf('\n');
  return nl > 0 && isTitleText(text.slice(0, nl), title) ? text.slice(nl + 1) : text;
}

/** ICU's sentence at `at`, carried on where it goes on (see sentenceGoesOn) up to `end`. */
function sentenceAt(segments: Intl.Segments, at: number, end: number): string {
  let sentence = segments.containing(at)!.segment;
  for (let kind = sentenceEnd(sentence); kind !== 0 && at + sentence.length < end; kind = sentenceEnd(sentence)) {
    const next = segments.containing(at + sentence.length)!.segment;
    if (kind === BANG && !LOWER_START.test(next)) break;
    sentence += next;
  }
  return sentence;
}

/**
 * The first sentence of each text; where `skip[k]` is given and the first sentence is just that (a PDF
 * section's block opens with its heading line), the sentence after it, within the text's head.
 */
export function firstSentences(texts: readonly string[], skip?: ReadonlyArray<string | null>): string[] {
  const heads: string[] = [];
  /** Whether a head is cut from a longer text: a sentence that reaches its end goes on past it. */
  const cut: boolean[] = [];
  for (let k = 0; k < texts.length; k++) {
    const p = proseHead(skip?.[k] ? afterTitleLine(texts[k]!, skip[k]!) : texts[k]!);
    heads.push(p.head.length > HEAD_CHARS ? p.head.slice(0, HEAD_CHARS) : p.head);
    cut.push(p.cut || p.head.length > HEAD_CHARS);
  }
  const out = new Array<string>(texts.length).fill('');
  for (let k = 0; k < texts.length; k++) {
    if (!opensWithFence(texts[k]!)) continue;
    out[k] = tidy(heads[k]!);
    heads[k] = '';
  }
  // Heads are joined up to a window's length at a time (see SEGMENT_WINDOW).
  for (let first = 0; first < heads.length; ) {
    let last = first + 1;
    for (let length = heads[first]!.length; last < heads.length && length + 1 + heads[last]!.length <= SEGMENT_WINDOW; last++) length += 1 + heads[last]!.length;
    const segments = segmenter.segment(heads.slice(first, last).join(PARAGRAPH_SEPARATOR));
    let start = 0;
    for (let k = first; k < last; k++) {
      // A separator always ends a sentence, so the segment containing a head's start begins there.
      if (heads[k]!.length > 0) {
        const headEnd = start + heads[k]!.length;
        const title = skip?.[k];
        // The first sentence with words in it that is not the title (a bullet may stand alone).
        let segment = '';
        let at = start;
        for (; at < headEnd && (!WORDY.test(segment) || (title && isTitleText(segment, title))); at += segment.length) {
          segment = sentenceAt(segments, at, headEnd);
        }
        if (WORDY.test(segment) && !(title && isTitleText(segment, title))) {
          const sentence = tidy(segment);
          out[k] = cut[k] && at >= headEnd && !sentence.endsWith('…') ? `${sentence}…` : sentence;
        }
      }
      start += heads[k]!.length + 1;
    }
    first = last;
  }
  return out;
}
