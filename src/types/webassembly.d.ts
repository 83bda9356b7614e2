/**
 * The part of the WebAssembly JavaScript API the vector kernel and the worker's memory limit
 * (wasm-memory-limit.ts) use. Node has it globally, but its
 * declarations ship only in TypeScript's DOM libraries, which the core must not see.
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer);
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    /** Grows by `delta` pages of 64 KiB; returns the previous size in pages. */
    grow(delta: number): number;
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
}
