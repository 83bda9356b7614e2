// tesseract.js ships types for its public API (createWorker), not for the worker script that the API runs
// in a thread of its own; DocQA runs that script in its ingestion worker (ocr-runtime.ts) and uses this much of it.
declare module 'tesseract.js/src/worker-script/index.js' {
  export interface Packet {
    workerId: string;
    jobId: string;
    action: 'load' | 'loadLanguage' | 'initialize' | 'setParameters' | 'recognize' | 'terminate';
    payload: unknown;
  }
  export interface Answer {
    status: 'resolve' | 'reject' | 'progress';
    data: unknown;
  }
  export interface Adapter {
    getCore: (lstmOnly: boolean, corePath: string, res: unknown) => Promise<(options: Record<string, unknown>) => Promise<unknown>>;
    gunzip: (data: Uint8Array) => Uint8Array;
    fetch: (url: string) => Promise<never>;
    readCache: (path: string) => Promise<Uint8Array | undefined>;
    writeCache: (path: string, data: Uint8Array) => Promise<void>;
    deleteCache: (path: string) => Promise<void>;
    checkCache: (path: string) => Promise<boolean>;
  }
  export function dispatchHandlers(packet: Packet, send: (answer: Answer) => void): void;
  export function setAdapter(adapter: Adapter): void;
}
declare module 'tesseract.js-core/tesseract-core-simd-lstm.js' {
  const TesseractCore: (options: Record<string, unknown>) => Promise<unknown>;
  export default TesseractCore;
}
