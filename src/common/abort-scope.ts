/**
 * The signal of one request: aborted when the caller's signal aborts or when the request aborts it
 * itself (a deadline), and letting go of the caller's signal when disposed.
 *
 * Not `AbortSignal.any` / `AbortSignal.timeout`: Node keeps such a signal in a process-wide set for as
 * long as it has an 'abort' listener and has not aborted, and the openai SDK adds a listener to every
 * request's signal and never removes it. Combined with a question's signal, every chat and embedding
 * request stayed in the heap for good (about 3 per question, test/stress/soak.test.ts); a timeout signal
 * stayed for its whole timeout. A plain AbortController's signal is collected with the request.
 */
export class AbortScope {
  private readonly controller = new AbortController();
  private readonly onParentAbort = () => this.controller.abort(this.parent?.reason);

  constructor(private readonly parent?: AbortSignal) {
    if (parent?.aborted) this.controller.abort(parent.reason);
    else parent?.addEventListener('abort', this.onParentAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts this request only (the caller's signal is untouched). */
  abort(reason: unknown): void {
    this.controller.abort(reason);
  }

  /** Call when the request is over: the caller's signal no longer references this one. */
  dispose(): void {
    this.parent?.removeEventListener('abort', this.onParentAbort);
  }
}
