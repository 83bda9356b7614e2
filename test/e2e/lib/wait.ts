/** Default wait for one thing to appear in the workbench. */
export const UI_TIMEOUT_MS = 30_000;

/** Polls `check` until it returns true, failing with `what` after `timeoutMs` (for state outside the page, e.g. logs). */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000, everyMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
