/**
 * `npm run bench`: every benchmark of the project, each printed next to a floor measured in the same
 * run, and written to bench/results.json as [{name, value, unit, floor, ratio, target}].
 */
import { ingestBench } from './ingest.bench';
import { printTable, writeResults, type BenchRow } from './report';

async function main(): Promise<void> {
  const rows: BenchRow[] = [];
  rows.push(...(await ingestBench()));
  printTable(rows);
  console.log(`\nwritten: ${writeResults(rows)}`);
}

void main();
