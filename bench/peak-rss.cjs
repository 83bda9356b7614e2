// Preloaded (`node --import ./bench/peak-rss.mjs dist/cli.js …`) by the scale bench: at exit, writes
// the process's peak resident memory (bytes; worker threads included: they share the process) to the
// file named by DOCQA_BENCH_PEAK_RSS_FILE. Plain JavaScript, so the measured process loads nothing else.
// Linux's VmHWM, not getrusage's ru_maxrss: the latter keeps the peak of the process before exec, here
// the bench's own (its fork), which made a one-book build look like 750 MB.
import fs from 'node:fs';

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
