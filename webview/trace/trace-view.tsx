import { useMemo, useState } from 'preact/hooks';
import { indexSpans } from '../../src/shared/span-rows';
import type { ReplayReport, TraceData } from '../../src/shared/trace-protocol';
import { showControls } from '../../src/shared/inert-text';
import { t } from '../../src/shared/trace-strings';
import { post, request } from './api';
import { ManifestView } from './manifest-view';
import { ReplayView } from './replay-view';
import { SpanDetail } from './span-detail';
import { SpanList } from './span-list';

type ActionState = { kind: 'idle' } | { kind: 'busy' } | { kind: 'failed'; code: string; message: string } | { kind: 'done'; text: string };

/** One trace: what the run was, its actions, the span tree with a waterfall, the selected span, the manifest. */
export function TraceView({ trace, otlp }: { trace: TraceData; otlp: boolean }) {
  const index = useMemo(() => indexSpans(trace.spans), [trace]);
  const [selected, setSelected] = useState<string | null>(index.rows[0]?.id ?? null);
  const [replay, setReplay] = useState<ReplayReport | null>(null);
  const [replayState, setReplayState] = useState<ActionState>({ kind: 'idle' });
  const [exportState, setExportState] = useState<ActionState>({ kind: 'idle' });
  const m = trace.meta;
  const turns = index.rows.filter((r) => r.turn !== null).map((r) => r.turn!);
  const [turn, setTurn] = useState<number>(turns[0] ?? 1);

  const runReplay = async () => {
    setReplayState({ kind: 'busy' });
    const r = await request((id) => ({ type: 'replay', id }));
    if (r.type === 'replay-result') {
      setReplay(r.report);
      setReplayState({ kind: 'idle' });
    } else if (r.type === 'request-failed') setReplayState({ kind: 'failed', code: r.code, message: r.message });
  };
  const runExport = async () => {
    setExportState({ kind: 'busy' });
    const r = await request((id) => ({ type: 'export-otlp', id }));
    if (r.type === 'export-result') setExportState({ kind: 'done', text: t('exported {0} spans', r.spans) });
    else if (r.type === 'request-failed') setExportState({ kind: 'failed', code: r.code, message: r.message });
  };

  return (
    <main class="trace">
      <header>
        <h1 data-testid="question">{typeof m?.question === 'string' ? showControls(m.question) : t('(incomplete trace: trace.json was never written)')}</h1>
        <p class="muted">
          <code data-testid="run-id">{trace.run_id}</code>
          {m && (
            <>
              {' · '}
              {m.started_at} · {m.mode === 'full' ? t('full trace') : t('metadata trace')} · <b data-testid="release">{m.release.status}</b>
              {m.release.reason ? ` (${m.release.reason})` : ''} · {t('stop reason')}: <span data-testid="stop-reason">{m.stop_reason ?? t('none')}</span> · {t('tokens')} {m.tokens.prompt}+{m.tokens.completion}
              {m.tokens.embedding ? ` · ${t('embedding tokens')} ${m.tokens.embedding}` : ''}
            </>
          )}
        </p>
        {m?.release.detail && <p>{m.release.detail}</p>}
        {(m?.partial || !m) && <p class="warning" role="status">{t('This trace is partial: {0} records were lost.', m?.records_dropped ?? '?')}{m?.writer_error ? ` ${m.writer_error}` : ''}</p>}
        {trace.unreadable_lines > 0 && <p class="warning">{t('{0} unreadable record lines were skipped.', trace.unreadable_lines)}</p>}
      </header>

      <nav class="actions" aria-label={t('Trace actions')}>
        <button type="button" data-testid="replay" disabled={replayState.kind === 'busy'} onClick={() => void runReplay()}>
          {replayState.kind === 'busy' ? t('Replaying…') : t('Replay retrieval')}
        </button>
        <span class="group">
          <label>
            {t('Turn')}{' '}
            <select value={String(turn)} onChange={(e) => setTurn(Number((e.target as HTMLSelectElement).value))} disabled={!turns.length}>
              {turns.map((k) => (
                <option key={k} value={String(k)}>
                  {k}
                </option>
              ))}
            </select>
          </label>
          <button type="button" data-testid="show-prompt" disabled={!turns.length} onClick={() => post({ type: 'show-prompt', turn })}>
            {t('Show prompt of turn {0}', turn)}
          </button>
        </span>
        {otlp && (
          <button type="button" data-testid="export" disabled={exportState.kind === 'busy'} onClick={() => void runExport()}>
            {t('Export to OTLP')}
          </button>
        )}
        <button type="button" data-testid="copy-run-id" onClick={() => post({ type: 'copy-run-id' })}>
          {t('Copy run id')}
        </button>
        <ActionNote state={exportState} />
      </nav>
      <ActionNote state={replayState} />
      {replay && <ReplayView report={replay} />}

      <div class="split">
        <SpanList index={index} selected={selected} onSelect={setSelected} />
        <SpanDetail trace={trace} row={selected ? (index.byId.get(selected) ?? null) : null} onSelect={setSelected} />
      </div>
      {m && <ManifestView manifest={m.manifest} />}
    </main>
  );
}

function ActionNote({ state }: { state: ActionState }) {
  if (state.kind === 'failed') return <p class="error" role="alert" data-testid="action-error">{`${state.code}: ${state.message}`}</p>;
  if (state.kind === 'done') return <span class="muted" role="status">{state.text}</span>;
  return null;
}
