import fs from 'node:fs';
import path from 'node:path';
import type { Answer, Packet } from 'tesseract.js/src/worker-script/index.js';
import { OCR_LANGUAGES, type OcrAssets, type OcrEngine } from './ocr-runtime';

type OcrBundle = typeof import('./ocr-bundle');

/**
 * Starts Tesseract in this thread through tesseract.js's own worker script (the code its `createWorker`
 * runs in a thread of its own), driven here with its messages: load the core, load the languages,
 * initialise, then one `recognize` a page. The adapter the script is given reads only the files of
 * `assets`: its `fetch` refuses, so nothing can be downloaded, and its gunzip is pako's (JavaScript), so
 * no zlib handle is ever opened in an ingestion worker (terminating a worker that holds one can abort the
 * process: see preparePdfThread in ingest-worker.ts). Tesseract's own messages ("Estimating resolution")
 * are dropped: they are not the user's business and the worker's console goes to the host's log.
 */
export async function startOcrEngine(bundle: OcrBundle, assets: OcrAssets): Promise<OcrEngine> {
  const { tesseractWorker, TesseractCore, ungzip } = bundle;
  const wasmBinary = fs.readFileSync(assets.wasm);
  // The worker script asks for `<langPath>/<lang>.traineddata.gz`: each name is mapped to our file.
  const files = new Map<string, string>(OCR_LANGUAGES.map((l) => [`${l}.traineddata.gz`, assets.languages[l]]));
  tesseractWorker.setAdapter({
    getCore: async () => (options) => TesseractCore({ ...options, wasmBinary, print: () => undefined, printErr: () => undefined }),
    gunzip: (data) => ungzip(data),
    fetch: (url) => Promise.reject(new Error(`OCR never downloads (asked for ${url})`)),
    readCache: async (p) => {
      const file = files.get(path.basename(p));
      if (!file) throw new Error(`no OCR data file ${p}`);
      return new Uint8Array(fs.readFileSync(file));
    },
    writeCache: async () => undefined,
    deleteCache: async () => undefined,
    checkCache: async () => false,
  });
  let job = 0;
  const call = (action: Packet['action'], payload: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      tesseractWorker.dispatchHandlers({ workerId: 'docqa', jobId: `job-${++job}`, action, payload }, (a: Answer) => {
        if (a.status === 'resolve') resolve(a.data);
        else if (a.status === 'reject') reject(new Error(`OCR ${action} failed: ${String(a.data)}`));
      });
    });
  // OEM 1: the LSTM engine, the only one the `best_int` data and the -lstm core hold.
  await call('load', { options: { lstmOnly: true, corePath: '', logging: false } });
  await call('loadLanguage', { langs: OCR_LANGUAGES.join('+'), options: { langPath: 'docqa-ocr', cacheMethod: 'none', gzip: true, lstmOnly: true } });
  await call('initialize', { langs: OCR_LANGUAGES.join('+'), oem: 1, config: {} });
  return {
    async recognize(image) {
      const out = (await call('recognize', { image, options: {}, output: { text: false, tsv: true } })) as { tsv: string | null };
      return out.tsv ?? '';
    },
  };
}
