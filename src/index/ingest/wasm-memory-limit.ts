import v8 from 'node:v8';

/**
 * WebAssembly memory inside the worker's memory limit. A worker's `resourceLimits` bound V8's heap
 * only: a WebAssembly memory is an ArrayBuffer outside it, so Tesseract (OCR, in the ingestion worker)
 * could grow past `ingest.max_worker_memory_mb` unchecked (measured: an A4 scan at 150 dpi takes its
 * memory from 17 to 29 MB; it may grow to 2 GB). Emscripten grows its memory from JavaScript
 * (`memory.grow`, in a try: a refusal makes its malloc return null, and Tesseract stops with an error),
 * so this thread's `WebAssembly.Memory.prototype.grow` refuses a growth that would take that memory and
 * the heap in use past the limit, and remembers it: the OCR that asked fails as the document's
 * `out_of_memory` (ocr-runtime.ts), the worker and the other documents go on. Only an ingestion
 * worker's entry calls it: the prototype is that thread's own.
 */
export interface WasmRefusal {
  /** The memory it would have had, MB. */
  wasmMb: number;
  /** V8's heap in use then, MB. */
  heapMb: number;
  limitMb: number;
}

let refused: WasmRefusal | null = null;
let installed = false;
const MB = 2 ** 20;
const PAGE = 65_536;

export function limitWasmMemory(limitMb: number): void {
  if (installed) return;
  installed = true;
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function (this: WebAssembly.Memory, delta: number): number {
    const wasm = this.buffer.byteLength + delta * PAGE;
    const heap = v8.getHeapStatistics().used_heap_size;
    if (wasm + heap > limitMb * MB) {
      refused = { wasmMb: Math.ceil(wasm / MB), heapMb: Math.ceil(heap / MB), limitMb };
      throw new RangeError(`WebAssembly memory of ${refused.wasmMb} MB with ${refused.heapMb} MB of heap in use would pass the worker's ${limitMb} MB`);
    }
    return grow.call(this, delta);
  };
}

/** The growth refused since the last call, if any (and forgets it). */
export function takeWasmRefusal(): WasmRefusal | null {
  const r = refused;
  refused = null;
  return r;
}
