/**
 * Orama 3 at its best against DocQA's index (issue 19 item 1), both through the search sides of
 * src/index/search/search-sides.ts. First keyword recall@5 on CMRC 2018 and SQuAD 1.1 for each Orama
 * tokenizer configuration (orama-sides.ts) next to DocQA's and the retrieval group's bigram reference;
 * the best configuration then goes on to 10k and 100k blocks × 1,024 dimensions: insert (build) time,
 * bytes and time to persist in each format of the persistence plugin, cold load in a fresh process
 * (floor: reading the same files), resident memory of the loaded index (floor: text + Float32 vectors),
 * keyword and hybrid query p95 (floor: a brute-force scan). The targets are the index and retrieval
 * groups' own, so a row says whether that engine meets them.
 * Every build and load runs in a process of its own (orama-child.ts) with a 16 GiB heap, stopped past
 * 16 GiB resident or 10 minutes in one step; a step stopped, or one that throws (a format that cannot
 * hold the index), is a `limit:` row: that is a result.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Bm25Index } from '../src/index/search/bm25-index';
import { buildBm25 } from '../src/index/search/bm25-build';
import { bigramBm25 } from './bigram-bm25';
import type { ChildEvent, ChildTask } from './orama-child';
import { FORMATS, type Format, OramaSides, TOKENIZERS, type TokenizerName } from './orama-sides';
import { QA_DIR, QA_SETS, qaSet, recallAt } from './qa-set';
import type { BenchRow } from './report';
import { KEYWORD_TARGET } from './retrieval.bench';

const DIMS = 1024;
const SIZES = (process.env.DOCQA_BENCH_ORAMA_SIZES ?? '10000,100000').split(',').map(Number);
const STEP_CAP_MS = Number(process.env.DOCQA_BENCH_ORAMA_STEP_S ?? 600) * 1000;
const RSS_CAP = 16 * 2 ** 30;
const MB = 1e6;

interface StepResult {
  values?: Record<string, number>;
  /** Why the step has no values: what it threw, or the cap that stopped it. */
  limit?: string;
  ms: number;
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs a task in a child, stopping it past the caps; the result of every step it started. */
async function runChild(task: ChildTask): Promise<Map<string, StepResult>> {
  const steps = new Map<string, StepResult>();
  const child = fork(path.join(__dirname, 'orama-child.ts'), [JSON.stringify(task)], { execArgv: ['--expose-gc', '--max-old-space-size=16384', '--import', 'tsx'], stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  let current: { step: string; since: number } | null = null;
  let stopped: string | null = null;
  child.on('message', (e: ChildEvent) => {
    if (e.phase === 'start') current = { step: e.step, since: performance.now() };
    else {
      const ms = current ? performance.now() - current.since : 0;
      steps.set(e.step, e.phase === 'done' ? { values: e.values, ms } : { limit: e.error, ms });
      current = null;
    }
  });
  const watch = setInterval(() => {
    if (!current || stopped) return;
    const rss = rssOf(child.pid!);
    if (rss > RSS_CAP) stopped = `over ${RSS_CAP / 2 ** 30} GiB resident (${(rss / 2 ** 30).toFixed(1)} GiB)`;
    else if (performance.now() - current.since > STEP_CAP_MS) stopped = `over ${STEP_CAP_MS / 60_000} min`;
    if (stopped) child.kill('SIGKILL');
  }, 250);
  const exit = await new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? String(code))));
  clearInterval(watch);
  const open = current as { step: string; since: number } | null;
  if (open) {
    const crash = stderr.split('\n').find((l) => /heap out of memory|RangeError|Error:/.test(l))?.trim();
    steps.set(open.step, { limit: stopped ?? `process ended (${exit})${crash ? `: ${crash}` : ''}`, ms: performance.now() - open.since });
  } else if (exit !== '0') throw new Error(`bench child ${task.task} failed (${exit}): ${stderr}`);
  return steps;
}

/** Keyword recall@5 of every Orama tokenizer, DocQA's index and the bigram reference; the best Orama tokenizer. */
function recall(): { rows: BenchRow[]; best: TokenizerName } {
  const rows: BenchRow[] = [];
  const mean = new Map<TokenizerName, number>(TOKENIZERS.map((t) => [t, 0]));
  for (const [name, file] of QA_SETS) {
    const { paragraphs, questions } = qaSet(file);
    const ref = recallAt(questions, 5, bigramBm25(paragraphs));
    const row = (engine: string, value: number, ms?: number) => {
      rows.push({ name: `orama.recall.${name}.keyword_recall@5 (${engine})`, value, unit: 'recall', floor: ref, ratio: value / ref, target: KEYWORD_TARGET });
      if (ms !== undefined) rows.push({ name: `orama.recall.${name}.index_ms (${engine})`, value: ms, unit: 'ms', floor: null, ratio: null });
    };
    let t = performance.now();
    const docqa = new Bm25Index(buildBm25(paragraphs));
    row('docqa', recallAt(questions, 5, (q, k) => docqa.search(q, k).ranked.map((h) => h.block)), performance.now() - t);
    for (const tok of TOKENIZERS) {
      t = performance.now();
      const o = OramaSides.build(paragraphs, null, 0, tok);
      const ms = performance.now() - t;
      const r = recallAt(questions, 5, (q, k) => o.search(q, k).ranked.map((h) => h.block));
      mean.set(tok, mean.get(tok)! + r / QA_SETS.length);
      row(`orama, tokenizer ${tok}`, r, ms);
    }
  }
  const best = TOKENIZERS.reduce((a, b) => (mean.get(b)! > mean.get(a)! ? b : a));
  return { rows, best };
}

/** The rows of one size: DocQA's and Orama's side by side, a `limit:` row for each step Orama could not do. */
async function atSize(n: number, tokenizer: TokenizerName): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const size = `${n / 1000}k`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-orama-'));
  try {
    const dq = await runChild({ task: 'build-docqa', n, dims: DIMS, dir });
    const dqLoad = await runChild({ task: 'load-docqa', n, dims: DIMS, dir });
    const build = dq.get('build')!.values!;
    const disk = dq.get('persist.docqa')!.values!;
    const query = dq.get('query')!.values!;
    const load = dqLoad.get('load.docqa')!;
    if (!load.values) throw new Error(`DocQA's snapshot did not load: ${load.limit}`);
    const payload = disk.text_bytes! + n * DIMS * 4;
    const engine = `orama[${tokenizer}]`;
    const name = (who: string, what: string) => `orama.${size}.${who}.${what}`;
    const limit = (who: string, what: string, r: StepResult) => rows.push({ name: `${name(who, what)} — limit: ${r.limit}`, value: r.ms, unit: 'ms', floor: null, ratio: null });
    rows.push({ name: name('docqa', 'build_ms'), value: build.ms!, unit: 'ms', floor: null, ratio: null });
    rows.push({ name: name('docqa', 'build_peak_rss_MB'), value: build.peak_rss! / MB, unit: 'MB', floor: null, ratio: null });
    rows.push({ name: name('docqa', 'bytes_on_disk_MB'), value: disk.bytes! / MB, unit: 'MB', floor: payload / MB, ratio: disk.bytes! / payload });
    const loadRows = (who: string, v: Record<string, number>) => {
      rows.push({ name: name(who, 'cold_load_ms (fresh process)'), value: v.ms!, unit: 'ms', floor: v.raw_ms!, ratio: v.ms! / v.raw_ms!, target: '<= 3' });
      rows.push({ name: name(who, 'resident_MB (RSS after load)'), value: v.resident! / MB, unit: 'MB', floor: payload / MB, ratio: v.resident! / payload, target: '<= 1.5' });
    };
    loadRows('docqa', load.values);
    rows.push({ name: name('docqa', 'keyword_query_p95_ms'), value: query.keyword_p95!, unit: 'ms', floor: null, ratio: null });
    rows.push({ name: name('docqa', 'hybrid_query_p95_ms'), value: query.hybrid_p95!, unit: 'ms', floor: query.brute_p95!, ratio: query.hybrid_p95! / query.brute_p95!, target: '<= 3' });

    // Orama: a step that ends its process (memory, time) takes the rest of the list with it, so the
    // build is run again for the formats not yet tried.
    const persisted = new Map<Format, StepResult>();
    let formats: Format[] = [...FORMATS];
    let first = true;
    while (first || formats.length) {
      const steps = await runChild({ task: 'build-orama', n, dims: DIMS, dir, tokenizer, formats, queries: first });
      const b = steps.get('build');
      if (first) {
        if (!b?.values) {
          limit(engine, 'insert_ms', b ?? { limit: 'not started', ms: 0 });
          return rows;
        }
        rows.push({ name: name(engine, 'insert_ms (vs docqa build)'), value: b.values.ms!, unit: 'ms', floor: build.ms!, ratio: b.values.ms! / build.ms! });
        rows.push({ name: name(engine, 'build_peak_rss_MB'), value: b.values.peak_rss! / MB, unit: 'MB', floor: build.peak_rss! / MB, ratio: b.values.peak_rss! / build.peak_rss! });
        rows.push({ name: name(engine, 'resident_MB (RSS after insert)'), value: b.values.resident! / MB, unit: 'MB', floor: payload / MB, ratio: b.values.resident! / payload, target: '<= 1.5' });
        const q = steps.get('query');
        if (q?.values) {
          rows.push({ name: name(engine, 'keyword_query_p95_ms (vs docqa)'), value: q.values.keyword_p95!, unit: 'ms', floor: query.keyword_p95!, ratio: q.values.keyword_p95! / query.keyword_p95! });
          rows.push({ name: name(engine, 'hybrid_query_p95_ms (docqa rrf over orama sides)'), value: q.values.hybrid_p95!, unit: 'ms', floor: q.values.brute_p95!, ratio: q.values.hybrid_p95! / q.values.brute_p95!, target: '<= 3' });
          rows.push({ name: name(engine, 'hybrid_query_p95_ms (orama hybrid mode)'), value: q.values.native_hybrid_p95!, unit: 'ms', floor: q.values.brute_p95!, ratio: q.values.native_hybrid_p95! / q.values.brute_p95!, target: '<= 3' });
        } else limit(engine, 'query_p95_ms', q ?? { limit: 'not started', ms: 0 });
      } else if (!b?.values) {
        for (const f of formats) persisted.set(f, b ?? { limit: 'not started', ms: 0 });
        break;
      }
      first = false;
      const tried = formats.filter((f) => steps.has(`persist.${f}`));
      for (const f of tried) persisted.set(f, steps.get(`persist.${f}`)!);
      formats = formats.filter((f) => !tried.includes(f));
    }
    for (const f of FORMATS) {
      const p = persisted.get(f)!;
      if (!p.values) {
        limit(engine, `${f}.persist`, p);
        continue;
      }
      rows.push({ name: name(engine, `${f}.persist_ms`), value: p.values.ms!, unit: 'ms', floor: null, ratio: null });
      rows.push({ name: name(engine, `${f}.persisted_MB (vs docqa)`), value: p.values.bytes! / MB, unit: 'MB', floor: disk.bytes! / MB, ratio: p.values.bytes! / disk.bytes! });
      const l = (await runChild({ task: 'load-orama', n, dims: DIMS, dir, tokenizer, format: f })).get(`load.${f}`) ?? { limit: 'not started', ms: 0 };
      if (l.values) loadRows(`${engine}.${f}`, l.values);
      else limit(engine, `${f}.cold_load`, l);
      fs.rmSync(path.join(dir, `orama.${f}`), { force: true });
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function oramaBench(): Promise<BenchRow[]> {
  if (!fs.existsSync(QA_DIR)) {
    console.log(`(orama skipped: ${QA_DIR} not found)`);
    return [];
  }
  const { rows, best } = recall();
  for (const n of SIZES) rows.push(...(await atSize(n, best)));
  return rows;
}
