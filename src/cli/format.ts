import { locationLabel } from '../shared/location-label';
import type { BlockLocation } from '../shared/block-location';
import type { Document } from '../shared/document';
import type { FailedDocument } from '../shared/failed-document';

export function formatLocation(l: BlockLocation | null): string {
  return l ? locationLabel(l) : '';
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * A file name or title as one safe terminal line: control characters (a newline in a file name) and bidi
 * controls (which reorder what follows them on screen) are shown as \u escapes; JSON output keeps them as they are.
 */
export function shown(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function formatFailure(f: FailedDocument): string {
  return `${shown(f.path)}\n  FAILED at ${f.stage}: ${f.code} — ${f.message}`;
}

export function formatDocument(d: Document, registered: boolean, showBlocks = true): string {
  const tokens = d.blocks.reduce((n, b) => n + b.token_count, 0);
  const lines = [
    d.path,
    `  doc_id:   ${d.doc_id}${registered ? '' : '  (not registered yet: `docqa sources scan` assigns ids to source files)'}`,
    `  title:    ${d.title}`,
    ...(d.authors?.length ? [`  authors:  ${d.authors.join(', ')}`] : []),
    `  source:   ${d.source_label}`,
    `  format:   ${d.format}${d.encoding ? ` (${d.encoding})` : ''}${d.page_count ? `, ${d.page_count} pages` : ''}, ${d.byte_size} bytes`,
    `  lang:     ${d.lang}`,
    `  contents: ${d.sections.length} sections, ${d.blocks.length} blocks, ${tokens} tokens`,
    '',
    'Sections (direct/subtree blocks, tokens)',
  ];
  for (const s of d.sections) {
    lines.push(`${'  '.repeat(s.depth)}[${s.ordinal}] ${s.title}  — ${s.direct_blocks}/${s.subtree_blocks} blocks, ${s.direct_tokens}/${s.subtree_tokens} tokens${s.location ? `, ${formatLocation(s.location)}` : ''}`);
    if (s.first_sentence) lines.push(`${'  '.repeat(s.depth)}    “${oneLine(s.first_sentence, 100)}”`);
  }
  if (showBlocks) {
    lines.push('', 'Blocks');
    for (const b of d.blocks) {
      lines.push(`  #${b.block_index} ${d.doc_id}#${b.block_id}  ${formatLocation(b.location)}  ${b.token_count} tokens  [${b.section_path}]`);
      lines.push(`      ${oneLine(b.text, 110)}`);
    }
  }
  return lines.join('\n');
}
