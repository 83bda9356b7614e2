import fs from 'node:fs';
import type { BenchRow } from './report';

/**
 * The share of this machine's CPU time its hypervisor gave to other machines ("steal", /proc/stat)
 * while a benchmark ran. This machine is a virtual one whose speed moves by 2× from hour to hour with
 * its neighbours' load; the rows with absolute targets (keyword p95 in ms) cannot be read without it.
 */
function cpuTimes(): { steal: number; total: number } | null {
  let line: string | undefined;
  try {
    line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  } catch {
    return null; // not Linux: no such figure
  }
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest is counted in user)
  const f = line?.startsWith('cpu ') ? line.trim().split(/\s+/).slice(1, 9).map(Number) : [];
  if (f.length < 8 || f.some((n) => !Number.isFinite(n))) return null;
  return { steal: f[7]!, total: f.reduce((a, b) => a + b, 0) };
}

/** Starts counting; the row gives the steal share (%) of all CPU time since, or null where it cannot be read. */
export function stealMeter(): (name: string) => BenchRow | null {
  const first = cpuTimes();
  return (name) => {
    const now = cpuTimes();
    if (!first || !now || now.total <= first.total) return null;
    return { name: `${name}.machine.cpu_steal_pct (CPU time the host gave to other machines)`, value: (100 * (now.steal - first.steal)) / (now.total - first.total), unit: '%', floor: null, ratio: null };
  };
}
