/**
 * Long CPU work on the event loop's thread, cut into slices: `tick()` gives the loop back (setImmediate)
 * once `budgetMs` have passed since the last time, so timers and I/O callbacks wait at most about that
 * long (the extension host loads a large snapshot without freezing). Call it often; it costs a clock read.
 */
export class Slicer {
  private last = performance.now();

  constructor(private readonly budgetMs = 8) {}

  async tick(): Promise<void> {
    if (performance.now() - this.last < this.budgetMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.last = performance.now();
  }
}
