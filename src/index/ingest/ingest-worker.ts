/**
 * Worker-thread entry: parses and blocks documents off the main thread, so the extension host never
 * freezes on a large PDF and ingestion uses every core. Bundled as dist/ingest-worker.js. This thread is
 * its own: here, and only here, the process-wide state pdf.js needs is set up (a DOMMatrix, its worker
 * module on globalThis), and the console is routed to the pool's logger, so no core code ever prints.
 */
import CSSMatrix from '@thednp/dommatrix';
import { format } from 'node:util';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { importPdfJs, providePdfJs } from '../parse/pdf-runtime';
import { importOcr, type OcrEngine, OcrMemoryError, provideOcr, resolveOcrAssets } from '../parse/ocr-runtime';
import { startOcrEngine } from '../parse/ocr-engine';
import { warmUpPdfJs } from '../parse/pdf';
import { parserFor } from '../parse/registry';
import { ingestFile } from './ingest-file';
import { type RenderRequest, type RenderResponse, renderFile } from './render-file';
import { limitWasmMemory, takeWasmRefusal } from './wasm-memory-limit';
import { useSharedTokenizerTables } from '../../common/tokenizer';
import type { OcrPage, WorkerLog, WorkerRecycle, WorkerRequest, WorkerResponse, WorkerSetup } from './ingest-pool';
import { SpareBuffers, serializedOf, serializedScan } from './serialized-document';

/**
 * Prepares the current thread for pdf.js: the DOMMatrix it needs before it is imported, its worker
 * module in-thread (a bundled build cannot spawn pdf.js's own worker), and its start-up lines
 * ("Warning: Cannot polyfill …", for rendering we never use) held back. A worker calls it at start; a
 * test process that parses PDFs itself may call it too (it is that process's own state).
 */
export function preparePdfThread(warming?: (on: boolean) => void, onOcrSpent?: () => void): void {
  withoutZlibStreams();
  // OCR (tesseract.js's worker script and Tesseract's WebAssembly) starts on the first scanned page; its
  // start is the worker's, not the document's (`warming`, as for pdf.js below).
  const start = async () => {
    warming?.(true);
    try {
      return withinMemory(await startOcrEngine(await importOcr(), resolveOcrAssets()), spent);
    } catch (err) {
      throw overMemory(err) ?? err;
    } finally {
      warming?.(false);
    }
  };
  /** Tesseract stopped for memory is no engine any more: this thread's OCR is refused from now on, and the pool told to replace the worker. */
  const spent = (err: OcrMemoryError) => {
    provideOcr(() => Promise.reject(new Error(`OCR stopped in this worker: ${err.message}`)));
    onOcrSpent?.();
  };
  provideOcr(start);
  providePdfJs(async () => {
    const g = globalThis as Record<string, unknown>;
    g.DOMMatrix ??= CSSMatrix;
    const { log, warn } = console;
    const quiet =
      (write: (...a: unknown[]) => void) =>
      (...args: unknown[]) => {
        if (typeof args[0] !== 'string' || !args[0].startsWith('Warning: ')) write(...args);
      };
    console.log = quiet(log);
    console.warn = quiet(warn);
    try {
      const { pdfjs, pdfjsWorker } = await importPdfJs();
      g.pdfjsWorker ??= pdfjsWorker;
      return pdfjs;
    } finally {
      console.log = log;
      console.warn = warn;
    }
  });
}

/** The OCR memory error for `err`, when a WebAssembly growth was refused meanwhile (wasm-memory-limit.ts). */
function overMemory(err: unknown): OcrMemoryError | null {
  const r = takeWasmRefusal();
  if (!r) return null;
  return new OcrMemoryError(
    `OCR ran out of memory: Tesseract's WebAssembly memory would have grown to ${r.wasmMb} MB with ${r.heapMb} MB of heap in use, more than the ${r.limitMb} MB a worker may use (the ingest.max_worker_memory_mb limit); raise the limit or split the scan`,
    { cause: err },
  );
}

/** The engine, whose page fails as out of memory when Tesseract asked for more than the limit while reading it (even if it then went on). */
function withinMemory(engine: OcrEngine, spent: (err: OcrMemoryError) => void): OcrEngine {
  return {
    async recognize(image) {
      let out: string;
      try {
        out = await engine.recognize(image);
      } catch (err) {
        const over = overMemory(err);
        if (over) spent(over);
        throw over ?? err;
      }
      const over = overMemory(null);
      if (over) {
        spent(over);
        throw over;
      }
      return out;
    },
  };
}

/**
 * Takes `DecompressionStream` and `CompressionStream` out of this thread, so that pdf.js inflates
 * FlateDecode streams with its own JavaScript decoder (it falls back to it when the global is missing).
 * Why: the pool stops a document over its time limit by terminating its worker, and a worker torn down
 * between a zlib handle's creation and its init aborts the whole process, not the thread
 * (`Assertion failed: init_done_ && "close before init"`, node_zlib.cc, exit 134; Node 20.20 and 24.21:
 * a thread looping `new DecompressionStream('deflate')`, terminated every few ms, took the process down
 * within 11 s here). In VS Code that process is the extension host every extension shares. Without a
 * zlib handle in the thread, terminating it is safe whenever it happens
 * (test/integration/ingest-pool-terminate.test.ts stops workers mid-inflate hundreds of times). It costs
 * nothing: pdf.js's own decoder is synchronous, and was 4–5× faster than the native stream on 10,000
 * small streams (3.3–4.4 s → 0.73 s) and no slower on pdkids.pdf. A separate process for the pool would
 * also have contained the abort, at the price of a second Node process per window and IPC copies.
 */
function withoutZlibStreams(): void {
  const g = globalThis as Record<string, unknown>;
  delete g.DecompressionStream;
  delete g.CompressionStream;
}

const port = isMainThread ? null : parentPort;
if (port) {
  // Whatever a library prints in this thread goes to the host's logger, not to the host's console.
  const forward = (level: WorkerLog['level']) => (...args: unknown[]) => port.postMessage({ log: { level, text: format(...args) } } satisfies WorkerResponse);
  console.log = forward('info');
  console.info = forward('info');
  console.warn = forward('warn');
  console.error = forward('error');
  console.debug = forward('debug');
  const { options, tokenizerTables } = workerData as WorkerSetup;
  // The tokenizer counts over the host's copy of its tables, not one of its own.
  if (tokenizerTables) useSharedTokenizerTables(tokenizerTables);
  // WebAssembly (Tesseract's) counts against the worker's memory limit as the heap does.
  limitWasmMemory(options.max_worker_memory_mb);
  preparePdfThread(
    (on) => port.postMessage({ warming: on } satisfies WorkerResponse),
    () => port.postMessage({ retire: true } satisfies WorkerResponse),
  );
  /** Jobs begun and not answered yet. */
  let running = 0;
  /** pdf.js started and run once, before this worker's first PDF; the pool stops that PDF's clock meanwhile. */
  let warm: Promise<void> | null = null;
  const warmUp = (): Promise<void> => {
    if (warm) return warm;
    port.postMessage({ warming: true } satisfies WorkerResponse);
    warm = warmUpPdfJs().finally(() => port.postMessage({ warming: false } satisfies WorkerResponse));
    return warm;
  };
  /** Buffers of serialised documents the host has written and given back (see SerializedDocument.release). */
  const spares = new SpareBuffers();
  port.on('message', (req: WorkerRequest | RenderRequest | WorkerRecycle) => {
    // The document view's request (render-file.ts): a worker of its own, one render, then stopped.
    if ('render' in req) return void renderFile(req.render.path, req.render.location, options).then((rendered) => port.postMessage({ rendered } satisfies RenderResponse));
    if ('recycle' in req) return spares.give(req.recycle);
    // Begun beside another job: the pool cannot tell when on its own (see WorkerResponse).
    if (running > 0) port.postMessage({ started: req.id } satisfies WorkerResponse);
    running++;
    const beforeParse = () => (parserFor(req.path)?.format === 'pdf' ? warmUp().catch(() => undefined) : undefined);
    const onOcrPage = (p: OcrPage) => port.postMessage({ ocr: { id: req.id, ...p } } satisfies WorkerResponse);
    void ingestFile(req.path, req.identity, options, { syncRead: true, knownHash: req.knownHash, beforeParse, onOcrPage })
      .then(
        (outcome): WorkerResponse => ({ id: req.id, outcome: req.serialize ? serializedScan(outcome, spares) : outcome }),
        (err: unknown): WorkerResponse => ({ id: req.id, error: err instanceof Error ? err.message : String(err) }),
      )
      .then((answer) => {
        running--;
        // A serialised document's bytes move to the host, not copied.
        const doc = 'outcome' in answer ? serializedOf(answer.outcome) : null;
        port.postMessage(answer, doc ? [doc.json.buffer] : []);
      });
  });
  port.postMessage({ ready: true } satisfies WorkerResponse);
}
