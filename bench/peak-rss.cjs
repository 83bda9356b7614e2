// Preloaded (`node --require ./bench/peak-rss.cjs dist/cli.js …`) by the scale bench: at exit, writes
// the process's peak resident memory (bytes; worker threads included: they share the process) to the
// file named by DOCQA_BENCH_PEAK_RSS_FILE. Plain CommonJS, so the measured process loads nothing else
// and loads as `docqa` does: a preload given with `--import` puts Node's ESM loader in front of the
// CommonJS entry and of every worker's script (they inherit execArgv), which then scans each bundle for
// its exports first (cjs-module-lexer: about 0.25 s for cli.js and 0.45 s per ingestion worker on this
// busy 2-core machine), a cost no user pays that made a one-book build look 40 % slower.
// Linux's VmHWM, not getrusage's ru_maxrss: the latter keeps the peak of the process before exec, here
// the bench's own (its fork), which made a one-book build look like 750 MB.
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS preload, on purpose (see above)
const fs = require('node:fs');

function peak() {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (kb) return Number(kb[1]) * 1024;
  } catch {
    // Not Linux: getrusage's figure.
  }
  return process.resourceUsage().maxRSS * 1024;
}

const out = process.env.DOCQA_BENCH_PEAK_RSS_FILE;
if (out) process.on('exit', () => fs.writeFileSync(out, String(peak())));
