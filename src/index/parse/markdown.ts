import MarkdownIt, { type MarkdownIt as MarkdownItParser, type Token } from 'markdown-it';
import { isScalar, parseDocument } from 'yaml';
import { IngestError } from '../../common/errors';
import type { SectionDraft, Unit, UnitKind } from '../blocks/parsed-document';
import { PREAMBLE_TITLE } from '../blocks/parsed-document';
import { decodeText } from '../sources/text-decode';
import type { DocumentParser } from './parser';
import { elideDataUris } from './data-uri';
import { SourceLines, unitFromLines } from './lines';

// CommonMark + GFM tables; HTML recognised as HTML so it is not mistaken for prose. Blocks keep their
// source text, so only block structure is needed: inline parsing (half of markdown-it's time) is off,
// and heading titles are parsed inline one by one.
/** markdown-it configured as this parser uses it, with its own token construction (the tests' reference). */
export function configuredMarkdownIt(): MarkdownItParser {
  const it = new MarkdownIt({ html: true });
  it.core.ruler.disable(['inline', 'linkify', 'replacements', 'smartquotes', 'text_join']);
  return it;
}
const md = configuredMarkdownIt();

/*
 * markdown-it's published build gives each token its ten fields through a class-field helper
 * (`_defineProperty` → `toPropertyKey` → `toPrimitive`, per field): a third of block parsing here. This
 * parser's block state builds its tokens by plain assignment instead: the same fields in the same order,
 * the same prototype, so the same objects (tested against markdown-it's own tokens on every fixture and
 * every block construct).
 */
type Nesting = Token['nesting'];
const BlockToken = function (this: Token, type: string, tag: string, nesting: Nesting) {
  this.map = null;
  this.level = 0;
  this.children = null;
  this.content = '';
  this.markup = '';
  this.info = '';
  this.block = false;
  this.hidden = false;
  this.type = type;
  this.tag = tag;
  this.attrs = null;
  this.nesting = nesting;
  this.meta = null;
} as unknown as new (type: string, tag: string, nesting: Nesting) => Token;
BlockToken.prototype = MarkdownIt.Token.prototype;

class PlainTokenBlockState extends MarkdownIt.StateBlock {
  override push(type: string, tag: string, nesting: Nesting): Token {
    const token = new BlockToken(type, tag, nesting);
    token.block = true;
    if (nesting < 0) this.level--;
    token.level = this.level;
    if (nesting > 0) this.level++;
    this.tokens.push(token);
    return token;
  }
}
md.block.State = PlainTokenBlockState;

/** The block tokens of a Markdown source, as this parser sees them. */
export function blockTokens(src: string): Token[] {
  return md.parse(src, {});
}
const inline = new MarkdownIt({ html: true });

/** VitePress/markdown-it-container fences (`::: tip`, `:::`) are layout, not content. */
const CONTAINER_FENCE = /^\s*:::/;
/** Explicit heading anchors `## Title {#id}` (VitePress, Pandoc). */
// (No white space before it in the pattern: a heading with a long run of spaces took time in its square.)
const HEADING_ANCHOR = /\{#[^{}]*\}\s*$/;
/** Script and style blocks are code the page runs, not text a reader reads. */
const SCRIPT_OR_STYLE = /^\s*<(script|style)\b/i;
/**
 * MDX's own blocks, which are code: an ESM statement (`import X from '…'`, `export const …`) opens a
 * paragraph, or a paragraph is only a `{/* comment *\/}`.
 */
const MDX_CODE = /^(?:import\s[^\n]*?['"][^'"\n]+['"];?\s*(?:\n|$)|export\s+(?:const|let|var|function|class|default|async|\{|\*)|\{\/\*[\s\S]*\*\/\}\s*$)/;
/** A table-of-contents directive alone in its paragraph (Typora `[TOC]`, VitePress `[[toc]]`, GitLab `[[_TOC_]]`): layout. */
const TOC_DIRECTIVE = /^\s*(?:\[toc\]|\[\[_?toc_?\]\]|\$\{toc\})\s*$/i;
/** Where an item of a generated table of contents opens: a link, `[…](`. */
const LINK_START = /^\s*\[/;
const OBSIDIAN_COMMENT = /^\s*%%(?:[^%]|%(?!%))*%%\s*$/;
/** An HTML block that is one heading element, whatever its attributes and inner markup. */
const HTML_HEADING = /^\s*<h([1-6])(?:\s[^>]*)?>([\s\S]*?)<\/h\1>\s*$/i;

/** An HTML image's alt text. */
const IMG_ALT = /<img\b[^>]*?\salt\s*=\s*(["'])(.*?)\1/i;

interface FrontMatter {
  /** Number of lines the front matter occupies (0 when absent). */
  lines: number;
  title: string | null;
}

/** A top-level `title = "…"` (or `'…'`) line of TOML front matter. */
const TOML_TITLE = /^title\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*(?:#.*)?$/;

/**
 * Hugo's TOML front matter between `+++` lines: skipped like YAML's, its title read from the one line
 * that sets it before any [table] (a basic string's escapes are JSON's; a literal string has none).
 */
function readTomlFrontMatter(lines: readonly string[]): FrontMatter {
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trim() !== '+++') continue;
    let title: string | null = null;
    for (const line of lines.slice(1, i)) {
      if (/^\s*\[/.test(line)) break;
      const m = TOML_TITLE.exec(line.trim());
      if (!m) continue;
      const raw = m[1]!;
      try {
        title = (raw.startsWith("'") ? raw.slice(1, -1) : (JSON.parse(raw) as string)).trim() || null;
      } catch {
        title = null;
      }
    }
    return { lines: i + 1, title };
  }
  return { lines: 0, title: null };
}

function readFrontMatter(lines: readonly string[]): FrontMatter {
  if (lines[0]?.trim() === '+++') return readTomlFrontMatter(lines);
  if (lines[0]?.trim() !== '---') return { lines: 0, title: null };
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (l === '---' || l === '...') {
      let title: string | null = null;
      // Only a block that names a title is worth a YAML parse.
      if (!lines.slice(1, i).some((x) => /^title\s*:/.test(x))) return { lines: i + 1, title: null };
      // A malformed front matter block is still front matter; only its title is lost.
      const doc = parseDocument(lines.slice(1, i).join('\n'));
      const node = doc.errors.length === 0 ? doc.get('title', true) : undefined;
      if (isScalar(node) && node.value !== null) {
        // `title: 1984` is a number to YAML and a title to its writer: keep what was written.
        const t = typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
        if (t.trim()) title = t.trim();
      }
      return { lines: i + 1, title };
    }
  }
  return { lines: 0, title: null };
}

/** A Logseq page property line, `key:: value`. */
const PAGE_PROPERTY = /^([A-Za-z][\w-]*)::[ \t]*(.*)$/;

/**
 * The `title::` among the property lines a Logseq page opens with: Logseq's page title where the file
 * name cannot carry it (`biology___cells.md` for "biology/cells").
 */
function pagePropertyTitle(lines: readonly string[]): string | null {
  for (const line of lines) {
    const m = PAGE_PROPERTY.exec(line);
    if (!m) return null;
    if (m[1]!.toLowerCase() === 'title' && m[2]!.trim()) return m[2]!.trim();
  }
  return null;
}

/** Characters that can start inline markup; a heading without any is its own plain text. */
const INLINE_MARKUP = /[`*_[\]<>&\\!~]/;

/**
 * Plain text of a heading's inline content: text and code spans, markup dropped. A heading that is only
 * an image (a logo, a diagram) is titled by its alt text rather than left untitled.
 */
function inlineText(token: Token | undefined): string {
  const content = token?.content ?? '';
  if (!INLINE_MARKUP.test(content)) return content.replace(HEADING_ANCHOR, '').trim();
  const children = inline.parseInline(content, {})[0]?.children ?? [];
  let out = '';
  let alt = '';
  for (const c of children) {
    if (c.type === 'text' || c.type === 'code_inline') out += c.content;
    else if (c.type === 'softbreak' || c.type === 'hardbreak') out += ' ';
    else if (c.type === 'image') alt += ` ${c.content}`;
  }
  const text = out.replace(HEADING_ANCHOR, '').trim();
  return text || alt.trim();
}

/** Whether an item's text is one link to an anchor of the page itself, `[TCP 的三次握手](#tcp-的三次握手)`. */
function isAnchorLink(content: string): boolean {
  if (!LINK_START.test(content)) return false;
  const children = inline.parseInline(content, {})[0]?.children ?? [];
  const open = children.findIndex((c) => c.type === 'link_open');
  const close = children.findIndex((c) => c.type === 'link_close');
  if (open < 0 || close < open || !String(children[open]!.attrGet('href') ?? '').startsWith('#')) return false;
  // Nothing outside the link but white space.
  return children.every((c, k) => (k >= open && k <= close) || (c.type === 'text' && !c.content.trim()) || c.type === 'softbreak');
}

/**
 * A table of contents as Typora, Markdown All in One and doctoc generate it: a list (nested or not) whose
 * every item is only a link to a heading of the same page. It is layout, as a `[TOC]` directive is, and
 * as a block it held every section title and so came first for any of them. A list of links elsewhere,
 * or with any prose, code or an item without a link, is content.
 */
function isGeneratedToc(tokens: readonly Token[], open: number, close: number): boolean {
  let items = 0;
  for (let k = open + 1; k < close; k++) {
    const t = tokens[k]!;
    if (t.type === 'list_item_open') {
      items++;
      // An item opens with its own text (a paragraph); one opening with a sub-list or nothing has none.
      if (tokens[k + 1]?.type !== 'paragraph_open') return false;
    } else if (t.type === 'inline') {
      if (!isAnchorLink(t.content)) return false;
    } else if (!/^(?:list_item_close|paragraph_open|paragraph_close|bullet_list_open|bullet_list_close|ordered_list_open|ordered_list_close)$/.test(t.type)) {
      return false;
    }
  }
  return items > 0;
}

/** The index of the token closing the top-level block opened at `open`. */
function closeOf(tokens: readonly Token[], open: number): number {
  let close = open + 1;
  while (close < tokens.length && !(tokens[close]!.level === 0 && tokens[close]!.nesting === -1)) close++;
  return close;
}

const BLOCK_KIND: Record<string, UnitKind> = {
  paragraph_open: 'prose',
  bullet_list_open: 'list',
  ordered_list_open: 'list',
  blockquote_open: 'quote',
  table_open: 'table',
  fence: 'code',
  code_block: 'code',
};

export const markdownParser: DocumentParser = {
  format: 'markdown',
  extensions: ['.md', '.markdown', '.mdown', '.mkd', '.mdx'],
  async parse(bytes, ctx) {
    ctx.signal?.throwIfAborted();
    const { text, encoding } = decodeText(bytes);
    const source = new SourceLines(text);
    const { lines } = source;
    const fm = readFrontMatter(lines);
    // Blank out the front matter so markdown-it's line map still matches the file's lines.
    const body = fm.lines === 0 ? source.text : lines.map((l, i) => (i < fm.lines ? '' : l)).join('\n');
    let tokens: Token[];
    try {
      tokens = blockTokens(body);
    } catch (err) {
      throw new IngestError('parse', 'corrupt', `Markdown could not be parsed: ${String(err)}`, { cause: err });
    }

    const sections: SectionDraft[] = [];
    const units: Unit[] = [];
    const stack: Array<{ level: number; index: number }> = [];
    let current = -1;
    // Set inside heading(): typed wide, or the compiler narrows it to null for good.
    let firstHeading = null as { level: number; title: string } | null;
    const add = (unit: Unit | null) => {
      if (!unit) return;
      if (pastedImages && unit.kind !== 'code') unit.text = elideDataUris(unit.text);
      if (current < 0) {
        sections.push({ title: PREAMBLE_TITLE, parent: null, location: null });
        current = sections.length - 1;
      }
      unit.section = current;
      units.push(unit);
    };

    const mdx = ctx.path.toLowerCase().endsWith('.mdx');
    // Looked for once in the whole text: per unit it cost a few percent of parsing.
    const pastedImages = source.text.includes('data:');
    const heading = (level: number, title: string, start: number, end: number) => {
      firstHeading ??= { level, title };
      while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
      sections.push({
        title,
        parent: stack.length ? stack[stack.length - 1]!.index : null,
        location: { kind: 'lines', line_start: start + 1, line_end: end },
      });
      current = sections.length - 1;
      stack.push({ level, index: current });
    };

    /**
     * A top-level list from its opening token at `open` to its closing one, lines [start, end). Headings
     * inside its items start sections, the list's lines between them being its blocks: outliners
     * (Logseq, Workflowy exports) write every heading as a bullet, `- ## Membranes`, with the section's
     * text as the items nested under it.
     */
    const addList = (open: number, close: number, start: number, end: number): void => {
      let from = start;
      for (let k = open + 1; k < close; k++) {
        const h = tokens[k]!;
        if (h.type !== 'heading_open' || !h.map) continue;
        add(unitFromLines(source, from, h.map[0], current, 'list', CONTAINER_FENCE));
        heading(Number(h.tag.slice(1)), inlineText(tokens[k + 1]), h.map[0], h.map[1]);
        from = h.map[1];
      }
      add(unitFromLines(source, from, end, current, 'list', CONTAINER_FENCE));
    };

    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (t.level !== 0 || !t.map) continue;
      const [start, end] = t.map;
      if (t.type === 'heading_open') {
        heading(Number(t.tag.slice(1)), inlineText(tokens[i + 1]), start, end);
        continue;
      }
      if (t.type === 'html_block') {
        if (SCRIPT_OR_STYLE.test(t.content)) continue;
        // <h1 align="center">Project</h1>, as READMEs and exported pages write their titles.
        const h = HTML_HEADING.exec(t.content);
        if (h) {
          // <h1><img src="logo.svg" alt="keyv"></h1>, as READMEs title themselves: the logo's alt text.
          const title = inlineText({ content: h[2]! } as Token) || (IMG_ALT.exec(h[2]!)?.[2]?.trim() ?? '');
          heading(Number(h[1]), title, start, end);
          continue;
        }
        // Keep HTML that carries words; wrappers like <div class="options-api"> carry none.
        // (Each pattern stops where another could start, so a block of unclosed "<" or "<!--" is linear.)
        if (t.content.replace(/<!--[\s\S]*?(?:-->|$)/g, '').replace(/<[^<>]*>/g, '').trim().length === 0) continue;
        add(unitFromLines(source, start, end, current, 'prose', CONTAINER_FENCE));
        continue;
      }
      const kind = BLOCK_KIND[t.type];
      if (kind === 'prose' && end - start === 1 && TOC_DIRECTIVE.test(lines[start]!)) continue;
      // An Obsidian comment (`%% … %%`) that is a whole paragraph is hidden, as an HTML comment is.
      if (kind === 'prose' && lines[start]!.trimStart().startsWith('%%') && OBSIDIAN_COMMENT.test(source.slice(start, end))) continue;
      if (mdx && kind === 'prose' && MDX_CODE.test(source.slice(start, end))) continue;
      if (kind === 'list') {
        const close = closeOf(tokens, i);
        if (!isGeneratedToc(tokens, i, close)) addList(i, close, start, end);
        i = close;
        continue;
      }
      if (kind) add(unitFromLines(source, start, end, current, kind, kind === 'code' ? undefined : CONTAINER_FENCE));
    }
    ctx.signal?.throwIfAborted();
    const title = fm.title ?? (fm.lines === 0 ? pagePropertyTitle(lines) : null) ?? (firstHeading && firstHeading.level === 1 && firstHeading.title ? firstHeading.title : null);
    return { format: 'markdown', title, sections, units, encoding, pageCount: null };
  },
};
