import fs from 'node:fs';
import path from 'node:path';

/** One benchmark row: a measured value next to a floor measured in the same run. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  /** The same-run baseline (physical floor), or null where the row is informational. */
  floor: number | null;
  /** value / floor, oriented so that the target reads as a bound on it. */
  ratio: number | null;
  /** What the ratio (or, when `absolute`, the value) should satisfy, e.g. ">= 0.25". */
  target?: string;
  /** The target bounds the value itself (a budget in its unit, like 50 ms of event-loop delay), not the ratio. */
  absolute?: boolean;
}

/** The number a row's target is about. */
export function judged(r: BenchRow): number | null {
  return r.absolute ? r.value : r.ratio;
}

export function printTable(rows: readonly BenchRow[]): void {
  const fmt = (n: number | null) => (n === null ? '-' : n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(3));
  const cells = rows.map((r) => [r.name, `${fmt(r.value)} ${r.unit}`, fmt(r.floor), fmt(r.ratio), r.target ? `${r.target}${r.absolute ? ` ${r.unit}` : ''}` : '', r.target && judged(r) !== null ? (meets(judged(r)!, r.target) ? 'ok' : 'MISSED') : '']);
  const head = ['benchmark', 'value', 'floor', 'ratio', 'target', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => x.padEnd(widths[i]!)).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

export function meets(ratio: number, target: string): boolean {
  const m = /^(<=|>=)\s*([\d.]+)$/.exec(target.trim());
  if (!m) return true;
  return m[1] === '<=' ? ratio <= Number(m[2]) : ratio >= Number(m[2]);
}

export function writeResults(rows: readonly BenchRow[]): string {
  const file = path.join(__dirname, 'results.json');
  fs.writeFileSync(file, `${JSON.stringify(rows, null, 2)}\n`);
  return file;
}
