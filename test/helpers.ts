import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ingestFile } from '../src/index/ingest-file';
import { DEFAULT_INGEST_OPTIONS, type Document, type IngestOptions } from '../src/index/model';

export const FIXTURES = path.join(__dirname, 'fixtures');
export const fixture = (...p: string[]) => path.join(FIXTURES, ...p);

/** Exact unit boundaries: no merging of tiny neighbours. */
export const UNMERGED: IngestOptions = { ...DEFAULT_INGEST_OPTIONS, chunking: { target_tokens: 256, max_tokens: 512, min_tokens: 0 } };

export function tempDir(prefix = 'docqa-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function ingestOk(file: string, options: IngestOptions = UNMERGED): Promise<Document> {
  const r = await ingestFile(file, { doc_id: 'dtest', source_label: 'fixtures', aliases: [] }, options);
  if (!r.ok) throw new Error(`expected ${file} to ingest, got ${JSON.stringify(r.failure)}`);
  return r.document;
}

/** Section paths and each block's (section, location, text) — the shape tests compare against by hand. */
export function outline(d: Document) {
  return d.sections.map((s) => [s.path, s.depth] as const);
}
export function blockView(d: Document) {
  return d.blocks.map((b) => {
    const loc = b.location.kind === 'lines' ? `L${b.location.line_start}-${b.location.line_end}` : `p${b.location.page}`;
    return [b.section_path, loc, b.text] as const;
  });
}
