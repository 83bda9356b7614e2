/**
 * Errors are values with codes. Ingestion failures are not exceptions to the batch: each becomes a
 * `failed_documents` entry `{path, stage, code, message}` and the rest of the batch goes on. Their stages
 * and codes are declared with that entry's schema in src/shared/failed-document.ts.
 */
import type { IngestErrorCode, IngestStage } from '../shared/failed-document';

export class DocQaError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A document-level ingestion failure; the caller turns it into a failed_documents entry. */
export class IngestError extends DocQaError {
  override readonly code: IngestErrorCode;
  readonly stage: IngestStage;
  constructor(stage: IngestStage, code: IngestErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.stage = stage;
    this.code = code;
  }
}

/** Persisted state that cannot be read: wrong version, truncated, invalid. Never silently replaced. */
export class StoreError extends DocQaError {
  constructor(
    code: 'store_corrupt' | 'store_future_version' | 'store_old_version' | 'store_locked' | 'store_io',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** A user-supplied argument was wrong (CLI exit 2 / tool `invalid_argument`). */
export class UsageError extends DocQaError {
  constructor(message: string) {
    super('invalid_argument', message);
  }
}

/** File-system errors that mean the disk refuses writes (read-only, full, failing, no permission), in words. */
const DISK_REFUSALS: Record<string, string> = {
  EROFS: 'the data directory is on a read-only file system',
  EACCES: 'no permission to write in the data directory',
  EPERM: 'no permission to write in the data directory',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EIO: 'the disk reported an input/output error',
};

/** What a refused write means for a person, when `err` is one (null for any other error). */
export function diskRefusal(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? (DISK_REFUSALS[code] ?? null) : null;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
