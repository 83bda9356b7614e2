import fs from 'node:fs/promises';
import path from 'node:path';
import type { DataDir } from '../common/data-dir';
import { DocQaError } from '../common/errors';
import { createIngestPool, defaultWorkerScript } from '../index/ingest/ingest-pool';
import type { IngestOutcome } from '../index/ingest/ingest-file';
import type { IngestOptions } from '../index/model';
import { loadRegistry } from '../index/sources/doc-registry';
import { loadSources } from '../index/sources/sources';

export interface Inspection {
  outcome: IngestOutcome;
  /** Whether the file is a registered document (its doc_id is the real one). */
  registered: boolean;
}

/**
 * What one file becomes — document, sections, blocks with locations, or its failure — parsed in an
 * ingestion worker (pdf.js runs only there; the host thread never parses). A missing path or a folder
 * is the caller's mistake, not the file's failure.
 */
export async function inspectFile(dir: DataDir, file: string, options: IngestOptions, addSourceCommand: string, signal?: AbortSignal): Promise<Inspection> {
  const abs = path.resolve(file);
  const st = await fs.stat(abs).catch(() => null);
  if (!st) throw new DocQaError('source_not_found', `no such file: ${abs}`);
  if (st.isDirectory()) throw new DocQaError('not_a_file', `${abs} is a folder: inspect shows one file (add a folder with ${addSourceCommand})`);
  const [registry, sources] = await Promise.all([loadRegistry(dir), loadSources(dir)]);
  const registered = registry.find((e) => e.path === abs);
  const source = sources.find((s) => abs === s.path || abs.startsWith(s.path + path.sep));
  const pool = createIngestPool(options, defaultWorkerScript(), 1);
  try {
    const outcome = await pool.run(abs, { doc_id: registered?.doc_id ?? '(unregistered)', source_label: source?.label ?? path.basename(path.dirname(abs)), aliases: source?.aliases ?? [] }, signal);
    if (outcome.ok === 'unchanged') throw new DocQaError('internal', 'inspect asked for no unchanged-file check');
    return { outcome, registered: registered !== undefined };
  } finally {
    await pool.close();
  }
}
