import { createRequire } from 'node:module';
import path from 'node:path';
import { INGEST_ERROR_CODES, INGEST_STAGES, IngestError, type IngestErrorCode, type IngestStage } from '../../common/errors';
import { ownBundle } from '../../common/own-bundle';
import type { DocumentFormat } from '../model';
import type { DocumentParser } from './parser';

type Bundle = typeof import('./formats-bundle');

let loaded: Bundle | undefined;

/** The parsers' own bundle (dist/formats.js, see formats-bundle.ts), or — run from source — the modules themselves. */
function load(): Bundle {
  loaded ??= ownBundle<Bundle>('formats.js') ?? (createRequire(__filename)(path.join(__dirname, 'formats-bundle')) as Bundle);
  return loaded;
}

/**
 * The bundle has its own copy of IngestError (it is built apart): its failures are made ours again, so
 * they keep their stage and code (`instanceof` would see another class, and report `internal`).
 */
function adopt(err: unknown): never {
  const e = err as { name?: unknown; stage?: unknown; code?: unknown; message?: unknown } | null;
  if (!(err instanceof IngestError) && e?.name === 'IngestError' && INGEST_STAGES.includes(e.stage as IngestStage) && INGEST_ERROR_CODES.includes(e.code as IngestErrorCode)) {
    throw new IngestError(e.stage as IngestStage, e.code as IngestErrorCode, String(e.message), { cause: err });
  }
  throw err;
}

/** A parser that loads its module (and its libraries) on its first use; its format and extensions are known before. */
function lazy(format: DocumentFormat, extensions: readonly string[], pick: (b: Bundle) => DocumentParser): DocumentParser {
  return {
    format,
    extensions,
    parse: (bytes, ctx) => pick(load()).parse(bytes, ctx).catch(adopt),
    render: (bytes, ctx, at) => pick(load()).render!(bytes, ctx, at).catch(adopt),
  };
}

/** Word files (docx.ts), e-books (epub.ts), web pages (html.ts) and slide decks (pptx.ts). */
export const docxParser = lazy('docx', ['.docx'], (b) => b.docxParser);
export const epubParser = lazy('epub', ['.epub'], (b) => b.epubParser);
export const htmlParser = lazy('html', ['.html', '.htm', '.xhtml'], (b) => b.htmlParser);
export const pptxParser = lazy('pptx', ['.pptx'], (b) => b.pptxParser);
