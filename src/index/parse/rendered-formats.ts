import { createRequire } from 'node:module';
import path from 'node:path';
import { INGEST_ERROR_CODES, INGEST_STAGES, type IngestErrorCode, type IngestStage } from '../../shared/failed-document';
import { IngestError } from '../../common/errors';
import { ownBundle } from '../../common/own-bundle';
import type { DocumentParser } from './parser';

type Bundle = typeof import('./formats-bundle');

let loaded: Bundle | undefined;

/** The parsers' own bundle (dist/formats.js, see formats-bundle.ts), or — run from source — the module itself. */
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

/**
 * A rendered format's registry entry: its name and extensions, known without loading anything; its
 * parser, src/index/parse/rendered/<format>.ts, loaded (with its libraries, in dist/formats.js) on the
 * first file of that format. test/unit/rendered-formats.test.ts checks the entry and the file agree.
 */
export function rendered(format: string, extensions: readonly string[]): DocumentParser {
  const real = () => load().renderedParser(format);
  return {
    format,
    extensions,
    parse: (bytes, ctx) => real().parse(bytes, ctx).catch(adopt),
    // Reduced to the document view's allowlist before it leaves the worker (render-clean.ts).
    render: (bytes, ctx, at) =>
      real()
        .render!(bytes, ctx, at)
        .then((r) => ({ ...r, html: load().cleanRendered(r.html) }), adopt),
  };
}
