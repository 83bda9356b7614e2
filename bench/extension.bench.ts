import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DocQaApp } from '../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../src/app/settings';
import { qaParagraphs } from './fixtures';
import type { BenchRow } from './report';

const ROOT = path.join(__dirname, '..');
const FILES = 1000;
/** Embedding width of the build: the provider default of the design card (text-embedding-v4). */
const DIMS = 1024;

/** The fake embedding server in a process of its own: its work must not be counted as the host's. */
async function startFakeServer(): Promise<{ child: ChildProcess; baseURL: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test', 'fakes', 'fake-server-cli.ts'), '--auto'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const baseURL = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /export DOCQA_CHAT_BASE_URL=(\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`fake server exited (${code})`)));
  });
  return { child, baseURL };
}

/** 1,000 notes of three real paragraphs each (SQuAD / CMRC 2018), under headings. */
function writeNotes(dir: string): void {
  const { paragraphs } = qaParagraphs();
  if (paragraphs.length < 3) throw new Error('the QA corpus (../shared/corpus/qa) is missing');
  for (let i = 0; i < FILES; i++) {
    const p = (k: number) => paragraphs[(i * 3 + k) % paragraphs.length]!;
    fs.writeFileSync(path.join(dir, `note-${String(i).padStart(4, '0')}.md`), `# Note ${i}\n\n${p(0)}\n\n## Part two\n\n${p(1)}\n\n## Part three\n\n${p(2)}\n`);
  }
}

/** p99 and max of the event loop's delay, in ms, while `work` runs (1 ms resolution). */
async function loopDelayDuring(work: () => Promise<unknown>): Promise<{ p99: number; max: number }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  try {
    await work();
  } finally {
    h.disable();
  }
  return { p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
}

/**
 * The extension host's responsiveness during a build: the application layer builds 1,000 notes (parsing
 * in the worker pool, embedding over HTTP to a fake server in another process, the keyword index and
 * writing in this process) while the event loop's delay is sampled. The floor is the same loop's delay
 * when idle for as long, measured in the same run.
 */
export async function extensionBench(): Promise<BenchRow[]> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-ext-'));
  const { child, baseURL } = await startFakeServer();
  try {
    const notes = path.join(tmp, 'notes');
    fs.mkdirSync(notes);
    writeNotes(notes);
    const app = new DocQaApp({
      dataDir: path.join(tmp, 'data'),
      settings: AppSettings.parse({ embedding: { provider: 'openai-compatible', base_url: baseURL, model: 'fake-embedding', dimensions: DIMS } }),
      keys: fixedKeys(undefined, undefined),
      appVersion: 'bench',
    });
    await app.addSources([notes]);
    let buildMs = 0;
    const during = await loopDelayDuring(async () => {
      const t = performance.now();
      const r = await (await app.startBuild({ confirmEgress: async () => true })).done;
      buildMs = performance.now() - t;
      if (r?.manifest.stats.documents !== FILES) throw new Error(`the build indexed ${r?.manifest.stats.documents} of ${FILES} notes`);
    });
    await app.close();
    const idle = await loopDelayDuring(() => new Promise((r) => setTimeout(r, Math.min(buildMs, 5000))));
    return [
      { name: 'extension.build_1000_files_loop_delay_p99_ms', value: during.p99, unit: 'ms', floor: idle.p99, ratio: during.p99 / idle.p99, target: '<= 50', absolute: true },
      { name: 'extension.build_1000_files_loop_delay_max_ms', value: during.max, unit: 'ms', floor: idle.max, ratio: during.max / idle.max },
      { name: 'extension.build_1000_files_ms', value: buildMs, unit: 'ms', floor: null, ratio: null },
    ];
  } finally {
    child.kill();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
