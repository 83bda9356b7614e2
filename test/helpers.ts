import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ingestFile } from '../src/index/ingest/ingest-file';
import { DEFAULT_INGEST_OPTIONS, type IngestOptions } from '../src/index/model';
import { type Document } from '../src/shared/document';
import type { RunManifest } from '../src/shared/trace-model';

export const FIXTURES = path.join(__dirname, 'fixtures');
export const fixture = (...p: string[]) => path.join(FIXTURES, ...p);

/** Every file under `dir`, at any depth. */
export function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** Exact unit boundaries: no merging of tiny neighbours. */
export const UNMERGED: IngestOptions = { ...DEFAULT_INGEST_OPTIONS, chunking: { target_tokens: 256, max_tokens: 512, min_tokens: 0 } };

const made: string[] = [];
// Each test file runs in a process of its own: its folders go when it exits (they piled up to gigabytes).
process.on('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder under the system's temporary directory, removed when the test process exits. */
export function tempDir(prefix = 'docqa-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
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
    const l = b.location;
    const loc = l.kind === 'lines' ? `L${l.line_start}-${l.line_end}` : l.kind === 'page' ? `p${l.page}` : l.kind === 'paragraphs' ? `¶${l.first}-${l.last}` : l.kind === 'chapter' ? `c${l.chapter}¶${l.first}-${l.last}` : `s${l.slide}¶${l.first}-${l.last}`;
    return [b.section_path, loc, b.text] as const;
  });
}

/** A run manifest with placeholder values, for writing traces outside a real run (writer tests, bench). */
export const PLACEHOLDER_MANIFEST: RunManifest = {
  app: { name: 'docqa', version: '0', build: 'source' },
  prompt_bundle: { id: 'baseline-en', version: '-', hash: '-', parent: null, language: 'en' },
  loop_protocol_version: '1',
  tool_contract_version: '1',
  tools: [],
  chat: { base_url: 'in-process', model: 'none', thinking: 'disabled', temperature: 0, max_output_tokens: 0 },
  embedding: { provider: 'none', model: null, dimensions: null },
  snapshot: { id: '-', completeness: 'complete', failed_documents: 0 },
  budgets: { max_context_tokens: 0, max_request_tokens: 0, finalization_reserve_tokens: 0, max_tool_calls: 0 },
  thresholds: { no_gain: 2, violations: 2 },
  config_hash: '-',
};
