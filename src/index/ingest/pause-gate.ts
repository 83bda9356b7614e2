/**
 * Pausing a background build: the build awaits `passable()` between documents, so a pause takes effect
 * at the next document boundary and holds no lock on half-done work; cancellation still ends it.
 */
export class PauseGate {
  private waiting: Array<() => void> = [];
  private isPaused = false;

  get paused(): boolean {
    return this.isPaused;
  }

  pause(): void {
    this.isPaused = true;
  }

  resume(): void {
    this.isPaused = false;
    const w = this.waiting;
    this.waiting = [];
    for (const r of w) r();
  }

  /** Resolves at once when running; when paused, once resumed (or rejects when the signal aborts). */
  passable(signal?: AbortSignal): Promise<void> {
    if (!this.isPaused) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
}
