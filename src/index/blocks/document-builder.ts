import crypto from 'node:crypto';
import path from 'node:path';
import { buildBlocks } from './blocker';
import { IngestError } from '../../common/errors';
import { addCounts, countScripts, detectLang, type ScriptCounts } from './lang-detect';
import type { Block, Document } from '../../shared/document';
import type { ChunkingParams } from '../model';
import { PREAMBLE_TITLE, type ParsedDocument } from './parsed-document';
import { assignPaths, buildSections } from './section-tree';

export interface DocumentIdentity {
  doc_id: string;
  path: string;
  source_label: string;
  aliases: string[];
  content_hash: string;
  byte_size: number;
}

/**
 * Block ids come from the block's text (8 hex of sha256), with `-2`, `-3` … for repeats inside a
 * document, so an unchanged paragraph keeps its id when other parts of the file change.
 */
function blockIds(texts: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return texts.map((t) => {
    const base = `b${crypto.hash('sha256', t).slice(0, 8)}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  });
}

export function fileTitle(filePath: string): string {
  return path.basename(filePath, path.extname(filePath));
}

/** Parsed units → the final document: blocks, unique section paths, counts, language. */
export function buildDocument(parsed: ParsedDocument, id: DocumentIdentity, chunking: ChunkingParams): Document {
  const title = parsed.title ?? fileTitle(id.path);
  const drafts = parsed.sections.map((s) => ({ ...s }));
  // A document without headings has one root section, named after the document.
  if (drafts.length === 1 && drafts[0]!.title === PREAMBLE_TITLE) drafts[0]!.title = title;
  const draftBlocks = buildBlocks(parsed.units, chunking);
  if (draftBlocks.length === 0) {
    const headings = parsed.sections.filter((s) => s.title !== PREAMBLE_TITLE).length;
    // A page of headings alone (an outline, a skeleton) is not empty to its writer: say what is missing.
    const why = headings ? `document has ${headings} heading(s) but no text under them to index` : 'document has no text content to index';
    // A paged document (a PDF) without text has no text layer (a scan): `no_text`, not an empty file.
    throw new IngestError('block', parsed.pageCount !== null ? 'no_text' : 'empty', why);
  }
  const paths = assignPaths(drafts);
  const ids = blockIds(draftBlocks.map((b) => b.text));
  const blocks: Block[] = draftBlocks.map((b, i) => ({
    block_id: ids[i]!,
    block_index: i,
    section_path: paths[b.section]!,
    text: b.text,
    token_count: b.tokens,
    location: b.location,
  }));
  const sections = buildSections(drafts, paths, blocks, draftBlocks.map((b) => b.section));
  let scripts: ScriptCounts = { han: 0, kana: 0, latinWords: 0 };
  for (const u of parsed.units) if (u.kind !== 'code') scripts = addCounts(scripts, countScripts(u.text));
  return {
    doc_id: id.doc_id,
    path: id.path,
    title,
    ...(parsed.authors?.length ? { authors: parsed.authors } : {}),
    source_label: id.source_label,
    aliases: id.aliases,
    lang: detectLang(scripts),
    format: parsed.format,
    content_hash: id.content_hash,
    byte_size: id.byte_size,
    encoding: parsed.encoding,
    page_count: parsed.pageCount,
    ...(parsed.unreadPages?.length ? { unread_pages: parsed.unreadPages } : {}),
    sections,
    blocks,
  };
}
