import type { AgentResult } from '../harness/agent-loop';
import { errorMessage } from '../common/errors';
import type { RunManifest } from '../shared/trace-model';
import { stampedId } from '../trace/trace-store';
import { type CaseFailure, FAILURE_TYPES, checkCase } from './eval-checks';
import type { GoldCase } from './goldset';
import { EVAL_FORMAT_VERSION, type EvalRecord } from './eval-store';

export interface OneRun {
  run_id: string;
  manifest: RunManifest;
  result: AgentResult;
  tools_called: string[];
}

export interface EvalInput {
  cases: GoldCase[];
  repeat: number;
  goldset: { path: string; sha256: string };
  runOne: (c: GoldCase, repeat: number) => Promise<OneRun>;
  onRun?: (caseId: string, repeat: number, pass: boolean) => void;
  /** Cancels the evaluation: the run in progress stops and nothing is recorded (a cancelled run is no failure). */
  signal?: AbortSignal;
}


/**
 * Runs every case `repeat` times (sequentially: results must not depend on scheduling) and checks each
 * run. A case "flips" when its repeats do not all pass or all fail: the model is not deterministic there.
 * A run that throws is a `run_error` failure, not the end of the evaluation; cancelling is.
 */
export async function runEval(i: EvalInput): Promise<EvalRecord> {
  const created = new Date();
  let manifest: RunManifest | null = null;
  const configs = new Set<string>();
  const cases: EvalRecord['cases'] = [];
  for (const c of i.cases) {
    const runs: EvalRecord['cases'][number]['runs'] = [];
    for (let r = 1; r <= i.repeat; r++) {
      let failures: CaseFailure[];
      let run_id: string | null = null;
      let status: string | null = null;
      let reason: string | null = null;
      try {
        const one = await i.runOne(c, r);
        manifest ??= one.manifest;
        configs.add(one.manifest.config_hash);
        run_id = one.run_id;
        status = one.result.release.status;
        reason = one.result.release.reason;
        failures = checkCase(c, one.result, one.tools_called);
      } catch (err) {
        if (i.signal?.aborted) throw err;
        failures = [{ type: 'run_error', detail: errorMessage(err) }];
      }
      runs.push({ repeat: r, run_id, status, reason, pass: failures.length === 0, failures });
      i.onRun?.(c.id, r, failures.length === 0);
    }
    const passed = runs.filter((x) => x.pass).length;
    cases.push({ id: c.id, question: c.question, runs, passed, flips: passed > 0 && passed < runs.length });
  }
  const all = cases.flatMap((c) => c.runs);
  const failure_types = Object.fromEntries(FAILURE_TYPES.map((t) => [t, all.reduce((n, r) => n + r.failures.filter((f) => f.type === t).length, 0)]));
  const passed = all.filter((r) => r.pass).length;
  return {
    formatVersion: EVAL_FORMAT_VERSION,
    eval_id: stampedId('e', created),
    created_at: created.toISOString(),
    goldset: { ...i.goldset, cases: i.cases.length },
    repeat: i.repeat,
    manifest,
    config_hashes: [...configs].sort(),
    cases,
    summary: { runs: all.length, passed, pass_rate: all.length ? passed / all.length : 0, failure_types, flipping: cases.filter((c) => c.flips).map((c) => c.id) },
  };
}
