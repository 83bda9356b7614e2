import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { HostToWebview } from '../src/shared/webview-protocol';
import { Failure, Inspector } from './inspector';
import { onHostMessage, post } from './vscode-api';

function App() {
  const [state, setState] = useState<HostToWebview | null>(null);
  useEffect(() => {
    const off = onHostMessage(setState);
    post({ type: 'ready' });
    return off;
  }, []);
  if (!state) return <p>Loading…</p>;
  return state.type === 'inspect-result' ? <Inspector document={state.document} /> : <Failure failure={state.failure} />;
}

render(<App />, document.getElementById('root')!);
