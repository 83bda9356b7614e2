import type { AbortScope } from '../common/abort-scope';

/**
 * A model stream's two deadlines — the whole call (total) and the silence between chunks (idle) — shared
 * by every chat client: the first to pass aborts the call's scope and is remembered, so the client can
 * tell a deadline from a broken connection.
 */
export class StreamDeadlines {
  /** The deadline that passed first, or null. */
  expired: 'idle' | 'total' | null = null;
  private readonly total: ReturnType<typeof setTimeout>;
  private idle: ReturnType<typeof setTimeout>;

  constructor(
    private readonly scope: AbortScope,
    private readonly ms: { total_timeout_ms: number; idle_timeout_ms: number },
  ) {
    this.total = setTimeout(() => this.expire('total'), ms.total_timeout_ms);
    this.idle = setTimeout(() => this.expire('idle'), ms.idle_timeout_ms);
  }

  /** A chunk arrived: the idle deadline starts again. */
  touch(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.expire('idle'), this.ms.idle_timeout_ms);
  }

  clear(): void {
    clearTimeout(this.total);
    clearTimeout(this.idle);
  }

  /** The error kind of the deadline that passed (idle when none did: an abort the client did not ask for). */
  get kind(): 'total_timeout' | 'idle_timeout' {
    return this.expired === 'total' ? 'total_timeout' : 'idle_timeout';
  }

  /** The kind's words for a person. */
  get message(): string {
    return this.kind === 'total_timeout' ? `the model did not finish within ${this.ms.total_timeout_ms} ms` : `the model sent nothing for ${this.ms.idle_timeout_ms} ms`;
  }

  private expire(kind: 'idle' | 'total'): void {
    this.expired ??= kind;
    this.scope.abort(new Error(`${kind} deadline`));
  }
}
