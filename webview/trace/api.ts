import { HostToTraceView, type TraceViewToHost } from '../../src/shared/trace-protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();

/** How long a request (replay, export) may take before the view says it failed: replay may embed queries. */
const REQUEST_TIMEOUT_MS = 120_000;

export function post(message: TraceViewToHost): void {
  api.postMessage(message);
}

type Reply = Extract<HostToTraceView, { id: number }>;
const pending = new Map<number, { resolve: (r: Reply) => void; timer: ReturnType<typeof setTimeout> }>();
let nextId = 1;

/**
 * Sends a request and resolves with the host's reply of the same id; a reply that never comes resolves
 * as a `timeout` failure, so no button waits forever.
 */
export function request(make: (id: number) => TraceViewToHost): Promise<Reply> {
  const id = nextId++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      resolve({ type: 'request-failed', id, code: 'timeout', message: `no answer after ${REQUEST_TIMEOUT_MS / 1000} s` });
    }, REQUEST_TIMEOUT_MS);
    pending.set(id, { resolve, timer });
    post(make(id));
  });
}

/** Subscribes to host messages; anything that does not match the protocol is dropped and logged. Replies go to their request. */
export function onHostMessage(handler: (m: HostToTraceView) => void): () => void {
  const listener = (e: MessageEvent) => {
    const parsed = HostToTraceView.safeParse(e.data);
    if (!parsed.success) {
      console.warn('docqa trace view: dropped a message that does not match the protocol', parsed.error.issues.slice(0, 3));
      return;
    }
    const m = parsed.data;
    if ('id' in m) {
      const p = pending.get(m.id);
      if (!p) return console.warn(`docqa trace view: a reply to no pending request (${m.id})`);
      pending.delete(m.id);
      clearTimeout(p.timer);
      p.resolve(m);
      return;
    }
    handler(m);
  };
  window.addEventListener('message', listener);
  return () => window.removeEventListener('message', listener);
}
