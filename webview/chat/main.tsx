// First: before any module that creates a schema.
import './zod-jitless';
import { render } from 'preact';
import { App } from './app';
import { ChatController } from './chat-controller';
import { ControllerContext } from './use-chat';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const ctl = new ChatController((m) => api.postMessage(m));
window.addEventListener('message', (e: MessageEvent) => ctl.client.receive(e.data));
// Pending requests are rejected when the page goes away (a view moved or closed).
window.addEventListener('pagehide', () => ctl.client.dispose());
window.addEventListener('error', (e) => ctl.client.log('error', `webview error: ${e.message}`));
window.addEventListener('unhandledrejection', (e) => ctl.client.log('error', `webview: unhandled rejection: ${String(e.reason)}`));

render(
  <ControllerContext.Provider value={ctl}>
    <App />
  </ControllerContext.Provider>,
  document.getElementById('root')!,
);
// Only now, with the listener in place: the host posts nothing before it.
ctl.client.ready();
