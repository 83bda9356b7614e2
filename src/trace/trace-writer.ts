import fs from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { errorMessage } from '../common/errors';
import { withinDeadline } from '../common/within-deadline';
import type { Redactor } from '../common/redact';
import { TRACE_FORMAT_VERSION, type TraceMeta, type TraceRecord } from '../shared/trace-model';
import type { TraceSink } from './tracer';

export const RECORDS_FILE = 'records.jsonl';
export const META_FILE = 'trace.json';

export interface TraceWriterOptions {
  /** Queue bounds: beyond them records are dropped (and counted), never buffered without limit. */
  maxQueueRecords: number;
  maxQueueBytes: number;
  /** How long close() waits for the queue to drain before giving up and marking the trace partial. */
  closeTimeoutMs: number;
  /** The append primitive (tests substitute a slow one). */
  append: (file: string, data: string) => Promise<void>;
}

export const DEFAULT_WRITER_OPTIONS: TraceWriterOptions = {
  maxQueueRecords: 4096,
  maxQueueBytes: 64 * 1024 * 1024,
  closeTimeoutMs: 2000,
  append: (file, data) => fs.appendFile(file, data, 'utf8'),
};

export interface TraceOutcome {
  run_id: string;
  dir: string;
  records_written: number;
  records_dropped: number;
  partial: boolean;
  writer_error: string | null;
}

/**
 * Writes one trace in the background: `write` only queues (bounded) and returns; a drain loop appends
 * batches to records.jsonl. Every line passes the redactor first. A failing writer stops writing and
 * counts what it lost; a slow one is abandoned at close. Either way the trace is marked partial and the
 * run it describes is never delayed beyond closeTimeoutMs, nor broken.
 */
export class TraceWriter implements TraceSink {
  private queue: string[] = [];
  private queuedBytes = 0;
  private written = 0;
  private dropped = 0;
  /** Records handed to an append that has not finished: lost if close() gives up on it. */
  private inflight = 0;
  private error: string | null = null;
  private draining: Promise<void> | null = null;
  private readonly options: TraceWriterOptions;

  constructor(
    readonly runId: string,
    readonly dir: string,
    private readonly redactor: Redactor,
    options: Partial<TraceWriterOptions> = {},
  ) {
    this.options = { ...DEFAULT_WRITER_OPTIONS, ...options };
  }

  write(record: TraceRecord): void {
    try {
      if (this.error) {
        this.dropped++;
        return;
      }
      const line = `${this.redactor.redact(JSON.stringify(record))}\n`;
      if (this.queue.length >= this.options.maxQueueRecords || this.queuedBytes + line.length > this.options.maxQueueBytes) {
        this.dropped++;
        return;
      }
      this.queue.push(line);
      this.queuedBytes += line.length;
      this.kick();
    } catch {
      this.dropped++;
    }
  }

  private kick(): void {
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.queue.length && !this.error) this.kick();
    });
  }

  private async drain(): Promise<void> {
    try {
      await fs.mkdir(this.dir, { recursive: true });
    } catch (err) {
      return this.fail(err);
    }
    while (this.queue.length && !this.error) {
      const batch = this.queue;
      this.queue = [];
      this.queuedBytes = 0;
      this.inflight = batch.length;
      try {
        await this.options.append(path.join(this.dir, RECORDS_FILE), batch.join(''));
        this.written += batch.length;
      } catch (err) {
        this.dropped += batch.length;
        this.fail(err);
      } finally {
        this.inflight = 0;
      }
    }
  }

  private fail(err: unknown): void {
    this.error ??= this.redactor.redact(errorMessage(err));
    this.dropped += this.queue.length;
    this.queue = [];
    this.queuedBytes = 0;
  }

  /**
   * Waits (bounded) for the queue, then writes trace.json with the run's meta and what was lost. Never
   * throws: the outcome says whether the trace is whole.
   */
  async close(meta: Omit<TraceMeta, 'formatVersion' | 'run_id' | 'records_written' | 'records_dropped' | 'partial' | 'writer_error'>): Promise<TraceOutcome> {
    const idle = (async () => {
      while (this.draining) await this.draining;
      return 'idle' as const;
    })();
    if ((await withinDeadline(idle, this.options.closeTimeoutMs)) === 'timeout') {
      this.error ??= `trace writer did not finish within ${this.options.closeTimeoutMs} ms`;
      this.dropped += this.queue.length + this.inflight;
      this.queue = [];
    }
    const outcome = (): TraceOutcome => ({
      run_id: this.runId,
      dir: this.dir,
      records_written: this.written,
      records_dropped: this.dropped,
      partial: this.dropped > 0 || this.error !== null,
      writer_error: this.error,
    });
    const o = outcome();
    const full: TraceMeta = { formatVersion: TRACE_FORMAT_VERSION, run_id: this.runId, ...meta, records_written: o.records_written, records_dropped: o.records_dropped, partial: o.partial, writer_error: o.writer_error };
    try {
      await fs.mkdir(this.dir, { recursive: true });
      const write = writeFileAtomic(path.join(this.dir, META_FILE), `${this.redactor.redact(JSON.stringify(full, null, 2))}\n`, { fsync: true });
      if ((await withinDeadline(write, this.options.closeTimeoutMs)) === 'timeout') throw new Error(`${META_FILE} was not written within ${this.options.closeTimeoutMs} ms`);
    } catch (err) {
      this.error ??= this.redactor.redact(errorMessage(err));
      return { ...outcome(), partial: true };
    }
    return o;
  }
}
