/**
 * `npm run bench`: every benchmark of the project, each printed next to a floor measured in the same
 * run, and written to bench/results.json as [{name, value, unit, floor, ratio, target}].
 */
import { ingestBench } from './ingest.bench';
import { printTable, writeResults, type BenchRow } from './report';
import { retrievalBench } from './retrieval.bench';
import { indexBench } from './index.bench';
import { rebuildBench } from './rebuild.bench';
import { oramaBench } from './orama.bench';
import { toolsBench } from './tools.bench';
import { harnessBench } from './harness.bench';

async function main(): Promise<void> {
  const rows: BenchRow[] = [];
  const only = process.argv[2];
  if (!only || only === 'ingest') rows.push(...(await ingestBench()));
  if (!only || only === 'retrieval') rows.push(...retrievalBench());
  if (!only || only === 'index') rows.push(...(await indexBench()));
  if (!only || only === 'rebuild') rows.push(...(await rebuildBench()));
  if (!only || only === 'orama') rows.push(...(await oramaBench()));
  if (!only || only === 'tools') rows.push(...(await toolsBench()));
  if (!only || only === 'harness') rows.push(...(await harnessBench()));
  printTable(rows);
  console.log(`\nwritten: ${writeResults(rows)}`);
}

void main();
