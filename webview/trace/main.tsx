import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { HostToTraceView } from '../../src/shared/trace-protocol';
import { setLanguage, t } from '../../src/shared/trace-strings';
import { onHostMessage, post } from './api';
import { EvalDiff, EvalResult } from './eval-view';
import { TraceView } from './trace-view';
import './trace.css';

type Shown = Extract<HostToTraceView, { type: 'show-trace' | 'show-eval' | 'show-eval-diff' }>;

function App() {
  const [shown, setShown] = useState<Shown | null>(null);
  useEffect(() => {
    const off = onHostMessage((m) => {
      if (m.type === 'show-trace' || m.type === 'show-eval' || m.type === 'show-eval-diff') {
        setLanguage(m.language);
        document.documentElement.lang = m.language;
        setShown(m);
      }
    });
    post({ type: 'ready' });
    return off;
  }, []);
  if (!shown) return <p class="muted">{t('Loading…')}</p>;
  if (shown.type === 'show-trace') return <TraceView trace={shown.trace} otlp={shown.otlp} />;
  if (shown.type === 'show-eval') return <EvalResult record={shown.record} />;
  return <EvalDiff diff={shown.diff} />;
}

render(<App />, document.getElementById('root')!);
