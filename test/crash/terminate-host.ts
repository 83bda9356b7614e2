/**
 * The host process of ingest-pool-terminate.test.ts: the real pool (dist/ingest-worker.js), two workers,
 * over copies of an inflate-heavy PDF (or, `ocr`, of a two-page scan read by OCR) with time limits set inside its parse, until `STOPS` documents have
 * been stopped (their workers terminated mid-inflate) or `MAX_JOBS` have run. It prints one JSON line and
 * exits 0; a worker that took the process down would end it with exit 134 (SIGABRT) before that line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createIngestPool, type ScanOutcome } from '../../src/index/ingest/ingest-pool';
import { IngestOptions } from '../../src/index/model';
import { inflateHeavyPdf } from '../fixtures/inflate-heavy-pdf';

const [worker, dir, stopsArg, kind = 'inflate'] = process.argv.slice(2);
const STOPS = Number(stopsArg);
/** `ocr`: scanned pages read by OCR (tesseract.js's WebAssembly) instead of inflate-heavy text pages. */
const OCR = kind === 'ocr';
const MAX_JOBS = STOPS * 3;
const identity = { doc_id: 'heavy', source_label: 'terminate', aliases: [] };
const code = (o: ScanOutcome) => (o.ok === true ? 'ok' : o.ok === false ? o.failure.code : 'unchanged');

async function main(): Promise<void> {
  const files = Array.from({ length: 4 }, (_, i) => path.join(dir!, `heavy-${i}.pdf`));
  const bytes = OCR ? fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'pdf', 'scanned-en-zh.pdf')) : inflateHeavyPdf();
  const options = (more: object) => IngestOptions.parse({ ocr: OCR, ...more });
  for (const f of files) fs.writeFileSync(f, bytes);
  // How long one takes on a warm worker, unstopped: the limits are fractions of it.
  const calibrate = createIngestPool(options({}), worker!, 1);
  const first = await calibrate.run(files[0]!, identity);
  if (first.ok !== true) throw new Error(`the PDF did not parse: ${JSON.stringify(first)}`);
  if (OCR && !first.document.blocks.some((b) => b.text.includes('thylakoid'))) throw new Error('OCR did not read the scan');
  const t = performance.now();
  await calibrate.run(files[1]!, identity);
  const full = performance.now() - t;
  await calibrate.close();
  const counts: Record<string, number> = {};
  let jobs = 0;
  for (let round = 0; (counts.too_slow ?? 0) < STOPS && jobs < MAX_JOBS; round++) {
    // 10 % to 60 % of an unstopped parse: stopped inside it, at a different point each round.
    const limit = Math.max(1, Math.round(full * (0.1 + 0.05 * (round % 11))));
    const pool = createIngestPool(options({ max_document_ms: limit }), worker!, 2);
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => pool.run(files[i % files.length]!, identity)));
    await pool.close();
    jobs += outcomes.length;
    for (const o of outcomes) counts[code(o)] = (counts[code(o)] ?? 0) + 1;
  }
  process.stdout.write(`${JSON.stringify({ full_ms: Math.round(full), jobs, counts })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
