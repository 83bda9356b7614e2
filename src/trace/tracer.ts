import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ArtifactKind, Attributes, SpanKind, SpanStatus, TraceMode, TraceRecord } from '../shared/trace-model';

/** Where finished spans and artifacts go (the background writer, or a list in tests). Must never throw. */
export interface TraceSink {
  write(record: TraceRecord): void;
}

export interface Span {
  readonly id: string;
  /** Adds or replaces attributes before the span ends. */
  set(attrs: Attributes): void;
  /** Records content linked to this span; only in `full` mode (a function is not even called in metadata mode). */
  artifact(kind: ArtifactKind, content: string | (() => string)): void;
  end(status?: SpanStatus, attrs?: Attributes): void;
}

/** Epoch milliseconds from a monotonic clock: siblings never appear to overlap because the wall clock moved. */
export const now = (): number => performance.timeOrigin + performance.now();

const spanId = (): string => crypto.randomBytes(8).toString('hex');

/**
 * Builds one request's span tree. Spans are written when they end (children before parents), so a run
 * cut short still leaves every finished step on disk. Tracing never affects the run: the sink swallows
 * its own failures.
 */
export class Tracer {
  readonly traceId = crypto.randomBytes(16).toString('hex');
  private artifacts = 0;

  constructor(
    readonly mode: TraceMode,
    private readonly sink: TraceSink,
  ) {}

  start(kind: SpanKind, name: string, parent: Span | null, attrs: Attributes = {}): Span {
    const id = spanId();
    const start = now();
    const attributes: Attributes = { ...attrs };
    let ended = false;
    const pending: TraceRecord[] = [];
    return {
      id,
      set: (a) => Object.assign(attributes, a),
      artifact: (kind, value) => {
        if (this.mode !== 'full') return;
        const content = typeof value === 'string' ? value : value();
        attributes[`${kind}_chars`] = content.length;
        const artifact_id = `a${++this.artifacts}`;
        pending.push({ type: 'artifact', artifact_id, span_id: id, kind, content });
        const list = (attributes.artifacts as string[] | undefined) ?? [];
        attributes.artifacts = [...list, artifact_id];
      },
      end: (status = 'ok', a = {}) => {
        if (ended) return;
        ended = true;
        Object.assign(attributes, a);
        for (const r of pending) this.sink.write(r);
        this.sink.write({ type: 'span', span_id: id, parent_id: parent?.id ?? null, kind, name, start_ms: start, end_ms: now(), status, attributes });
      },
    };
  }
}

/** A sink that keeps nothing: a run without a trace behaves exactly like one with a trace. */
export const NULL_SINK: TraceSink = { write: () => {} };
