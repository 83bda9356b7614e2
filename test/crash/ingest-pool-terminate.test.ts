/**
 * A document over its time limit is stopped by terminating its worker. Terminating a thread while it
 * inflates through zlib aborted the whole process (node_zlib.cc "close before init", exit 134): in VS
 * Code, the extension host of every extension. Here a separate host process runs the real pool and has
 * hundreds of workers stopped mid-inflate; it must live on and say what happened.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';

const WORKER = path.join(__dirname, '..', '..', 'dist', 'ingest-worker.js');
const STOPS = 200;
/** Fewer: each replaced worker starts OCR again (a few seconds, off the document's clock). */
const OCR_STOPS = 20;

describe('workers stopped mid-inflate', () => {
  it(`the host lives on while ${STOPS} workers are terminated inside pdf.js's inflate`, { timeout: 30 * 60_000 }, async () => {
    assert.ok(fs.existsSync(WORKER), 'run npm run build first');
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'terminate-host.ts'), WORKER, tempDir(), String(STOPS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
    assert.equal(signal, null, `the host process was killed by ${signal}: ${err.slice(-2000)}`);
    assert.equal(exitCode, 0, `the host process exited ${exitCode}: ${err.slice(-2000)}`);
    const report = JSON.parse(out.trim()) as { full_ms: number; jobs: number; counts: Record<string, number> };
    assert.ok((report.counts.too_slow ?? 0) >= STOPS, JSON.stringify(report));
    // Every job either finished or was stopped for its limit: nothing else went wrong.
    assert.deepEqual(Object.keys(report.counts).filter((c) => c !== 'too_slow' && c !== 'ok'), [], JSON.stringify(report));
    recordTrials({ area: 'hostile input', fault: `a worker terminated for ingest.max_document_ms while pdf.js inflates FlateDecode streams (64 MB font program, 100 content streams), limits 10–60 % of its parse`, trials: report.counts.too_slow!, outcome: 'each document fails parse/too_slow alone and its worker is replaced; the host process lives on (no zlib handle in the workers)' }, __filename);
  });

  // OCR runs Tesseract's WebAssembly in the worker and unpacks its language data with pako (JavaScript),
  // never zlib: a worker stopped inside a page's recognition must be as safe for the host.
  it(`the host lives on while ${OCR_STOPS} workers are terminated inside OCR (tesseract.js's WebAssembly)`, { timeout: 30 * 60_000 }, async () => {
    assert.ok(fs.existsSync(WORKER), 'run npm run build first');
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'terminate-host.ts'), WORKER, tempDir(), String(OCR_STOPS), 'ocr'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
    assert.equal(signal, null, `the host process was killed by ${signal}: ${err.slice(-2000)}`);
    assert.equal(exitCode, 0, `the host process exited ${exitCode}: ${err.slice(-2000)}`);
    const report = JSON.parse(out.trim()) as { full_ms: number; jobs: number; counts: Record<string, number> };
    assert.ok((report.counts.too_slow ?? 0) >= OCR_STOPS, JSON.stringify(report));
    assert.deepEqual(Object.keys(report.counts).filter((c) => c !== 'too_slow' && c !== 'ok'), [], JSON.stringify(report));
    recordTrials({ area: 'hostile input', fault: `a worker terminated for ingest.max_document_ms while OCR reads a scanned page (tesseract.js WebAssembly, ingest.ocr on), limits 10–60 % of the document's parse`, trials: report.counts.too_slow!, outcome: 'each document fails parse/too_slow alone and its worker is replaced; the host process lives on' }, __filename);
  });
});
