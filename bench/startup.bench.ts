import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchRow } from './report';

const DIST = path.join(__dirname, '..', 'dist');

/** Best wall time of `node args` over a few runs, in ms (a fresh process each time). */
function bestRun(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  let best = Infinity;
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${r.stderr.toString()}`);
    if (i > 0) best = Math.min(best, ms); // the first run warms the page cache
  }
  return best;
}

/**
 * Start-up of the built CLI, next to the floor of starting Node itself: a command that needs neither
 * pdf.js nor the tokenizer (`--version`, `sources list`) loads neither; `inspect` of a note loads the
 * tokenizer, of a PDF both. And a tool call through the launcher's code cache against the same bundle
 * compiled afresh.
 */
export async function startupBench(): Promise<BenchRow[]> {
  const cli = path.join(DIST, 'cli.js');
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-startup-'));
  try {
    const env = { ...process.env, DOCQA_HOME: path.join(home, 'store'), HOME: home };
    const node = bestRun(['-e', '0']);
    const fixtures = path.join(__dirname, '..', 'test', 'fixtures');
    const cases: Array<[string, string[]]> = [
      ['version', ['--version']],
      ['sources_list', ['sources', 'list']],
      ['inspect_markdown', ['inspect', path.join(fixtures, 'markdown', 'cell-notes.md')]],
      ['inspect_pdf', ['inspect', path.join(fixtures, 'pdf', 'photosynthesis-zh.pdf')]],
    ];
    const rows: BenchRow[] = cases.map(([name, args]) => {
      const ms = bestRun([cli, ...args], env);
      return { name: `startup.cli.${name}_ms`, value: ms, unit: 'ms', floor: node, ratio: ms / node };
    });
    // The launcher's code cache (src/cli/launcher.ts) against compiling the CLI's bundle each time, as
    // Node does when it runs the bundle itself; the first run of bestRun writes the cache if it is missing.
    const cached = bestRun([cli, 'tool', 'list_documents', '{}'], env);
    const compiled = bestRun([path.join(DIST, 'cli-main.js'), 'tool', 'list_documents', '{}'], env);
    rows.push({ name: 'startup.cli.code_cache.tool_ms (vs compiling the bundle)', value: cached, unit: 'ms', floor: compiled, ratio: cached / compiled, target: '<= 0.9' });
    return rows;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
