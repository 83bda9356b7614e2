import type { EvalRecord } from './eval-store';

export interface EvalDiff {
  a: string;
  b: string;
  pass_rate: { a: number; b: number; delta: number };
  /** Per case: passes out of runs on each side; `change` says which way it moved. */
  cases: Array<{ id: string; a: string | null; b: string | null; change: 'improved' | 'regressed' | 'same' | 'only_a' | 'only_b' }>;
  /** Manifest fields that differ (prompt bundle, model, snapshot...): what could explain the change. */
  manifest_changes: Array<{ field: string; a: unknown; b: unknown }>;
}

function flatten(value: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const k of Object.keys(value).sort()) flatten((value as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k, out);
  } else out[prefix] = value;
  return out;
}

export function diffEvals(a: EvalRecord, b: EvalRecord): EvalDiff {
  const rate = (c: EvalRecord['cases'][number]) => c.passed / Math.max(1, c.runs.length);
  const byA = new Map(a.cases.map((c) => [c.id, c]));
  const byB = new Map(b.cases.map((c) => [c.id, c]));
  const ids = [...new Set([...byA.keys(), ...byB.keys()])].sort();
  const cases = ids.map((id) => {
    const ca = byA.get(id);
    const cb = byB.get(id);
    const fmt = (c: typeof ca) => (c ? `${c.passed}/${c.runs.length}` : null);
    const change = !ca ? 'only_b' : !cb ? 'only_a' : rate(cb) > rate(ca) ? 'improved' : rate(cb) < rate(ca) ? 'regressed' : 'same';
    return { id, a: fmt(ca), b: fmt(cb), change } as EvalDiff['cases'][number];
  });
  const fa = flatten(a.manifest ?? {});
  const fb = flatten(b.manifest ?? {});
  const manifest_changes = [...new Set([...Object.keys(fa), ...Object.keys(fb)])]
    .sort()
    .filter((k) => JSON.stringify(fa[k]) !== JSON.stringify(fb[k]))
    .map((field) => ({ field, a: fa[field], b: fb[field] }));
  return { a: a.eval_id, b: b.eval_id, pass_rate: { a: a.summary.pass_rate, b: b.summary.pass_rate, delta: b.summary.pass_rate - a.summary.pass_rate }, cases, manifest_changes };
}
