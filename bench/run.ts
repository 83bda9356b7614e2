/**
 * `npm run bench`: every benchmark of the project, each printed next to a floor measured in the same
 * run, and written to bench/results.json as [{name, value, unit, floor, ratio, target}].
 * `npm run bench <group>` runs one group. The whole run gives each group a process of its own, so that
 * no group is timed on a heap another one left behind (the 100k-block groups leave gigabytes of garbage,
 * and the harness group, timed last, paid for it in collections: 3.25 ms per turn instead of 0.7).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ingestBench } from './ingest.bench';
import { printTable, writeResults, type BenchRow } from './report';
import { stealMeter } from './cpu-steal';
import { retrievalBench } from './retrieval.bench';
import { indexBench } from './index.bench';
import { rebuildBench } from './rebuild.bench';
import { oramaBench } from './orama.bench';
import { toolsBench } from './tools.bench';
import { harnessBench } from './harness.bench';
import { startupBench } from './startup.bench';
import { extensionBench } from './extension.bench';
import { activationBench } from './activation.bench';
import { webviewBench } from './webview.bench';
import { traceviewBench } from './traceview.bench';
import { handwrittenBench } from './handwritten.bench';
import { scaleBench } from './scale.bench';
import { CORPUS_DIR, pdfCorpusBench } from './pdf-corpus.bench';
import { formatsBench } from './formats.bench';
import { ocrBench } from './ocr.bench';
import { mcpBench } from './mcp.bench';

const GROUPS: Record<string, () => Promise<BenchRow[]>> = {
  ingest: ingestBench,
  retrieval: retrievalBench,
  index: indexBench,
  rebuild: rebuildBench,
  orama: oramaBench,
  tools: toolsBench,
  harness: harnessBench,
  startup: startupBench,
  extension: extensionBench,
  activation: activationBench,
  webview: webviewBench,
  traceview: traceviewBench,
  handwritten: handwrittenBench,
  scale: scaleBench,
  'pdf-corpus': pdfCorpusBench,
  formats: formatsBench,
  ocr: ocrBench,
  mcp: mcpBench,
};

/** Set for a group run as a child of the whole run: where its rows go. */
const CHILD_OUT = 'DOCQA_BENCH_ROWS_FILE';

/** A group's rows, and the share of CPU time the host took from this machine while it ran. */
async function runGroup(group: string): Promise<BenchRow[]> {
  const steal = stealMeter();
  const rows = await GROUPS[group]!();
  const row = steal(group);
  return row ? [...rows, row] : rows;
}

function runGroupInChild(group: string): BenchRow[] {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-rows-')), 'rows.json');
  try {
    const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, group], { stdio: 'inherit', env: { ...process.env, [CHILD_OUT]: out } });
    if (r.status !== 0) throw new Error(`bench group ${group} failed (exit ${r.status ?? r.signal})`);
    return JSON.parse(fs.readFileSync(out, 'utf8')) as BenchRow[];
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const only = process.argv[2];
  if (only !== undefined && !GROUPS[only]) throw new Error(`unknown bench group ${only}; groups: ${Object.keys(GROUPS).join(' ')}`);
  const childOut = process.env[CHILD_OUT];
  if (only && childOut) {
    fs.writeFileSync(childOut, JSON.stringify(await runGroup(only)));
    return;
  }
  // The pdf.js corpus is not in the repository (bench/pdf-corpus.bench.ts): the whole run says so and goes on.
  const groups = Object.keys(GROUPS).filter((g) => g !== 'pdf-corpus' || fs.existsSync(CORPUS_DIR));
  if (!only && groups.length < Object.keys(GROUPS).length) console.log(`pdf-corpus: not run, no corpus at ${CORPUS_DIR} (bash bench/pdf-corpus-setup.sh PATH-TO-A-PDF.JS-CLONE)`);
  const rows: BenchRow[] = only ? await runGroup(only) : groups.flatMap(runGroupInChild);
  printTable(rows);
  console.log(`\nwritten: ${writeResults(rows)}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
