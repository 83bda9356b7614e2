import { HostToWebview, type WebviewToHost } from '../src/shared/webview-protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();

export function post(message: WebviewToHost): void {
  api.postMessage(message);
}

/** Subscribes to host messages; anything that does not match the protocol is dropped. */
export function onHostMessage(handler: (m: HostToWebview) => void): () => void {
  const listener = (e: MessageEvent) => {
    const parsed = HostToWebview.safeParse(e.data);
    if (parsed.success) handler(parsed.data);
  };
  window.addEventListener('message', listener);
  return () => window.removeEventListener('message', listener);
}
