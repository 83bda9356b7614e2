/**
 * Turns a burst of file changes into one incremental rebuild: each change restarts a quiet period; when
 * it ends the rebuild runs; changes that arrive while it runs start one more after it, never a second
 * at the same time. Pure (timers injected), so it is tested in plain Node.
 */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const REAL_TIMERS: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) };

export class RebuildScheduler {
  private timer: unknown = null;
  private running = false;
  private again = false;
  private disposed = false;

  constructor(
    private readonly rebuild: () => Promise<void>,
    private readonly quietMs = 2000,
    private readonly timers: Timers = REAL_TIMERS,
  ) {}

  /** A file of a source changed. */
  changed(): void {
    if (this.disposed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = this.timers.set(() => void this.fire(), this.quietMs);
  }

  private async fire(): Promise<void> {
    this.timer = null;
    this.running = true;
    try {
      await this.rebuild();
    } catch {
      // the rebuild reports its own failure; the next change tries again
    } finally {
      this.running = false;
      if (this.again && !this.disposed) {
        this.again = false;
        this.changed();
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
  }
}
