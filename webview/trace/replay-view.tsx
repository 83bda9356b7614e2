import type { ReplayReport } from '../../src/shared/trace-protocol';
import { showControls } from '../../src/shared/inert-text';
import { t } from '../../src/shared/trace-strings';

/** Replay of the run's tool calls on the snapshot it used: identical or changed per call, with the refs that moved. */
export function ReplayView({ report }: { report: ReplayReport }) {
  const changed = report.calls.filter((c) => !c.error && !c.identical).length;
  const notRun = report.calls.filter((c) => c.error).length;
  return (
    <section class="replay" data-testid="replay-result" aria-live="polite">
      <h2>{t('Replay on snapshot {0}', report.snapshot_id)}</h2>
      <p>
        {report.calls.length === 0 ? t('The run made no tool calls.') : report.identical ? t('All {0} results identical.', report.calls.length) : t('{0} changed, {1} not re-run, of {2} tool calls.', changed, notRun, report.calls.length)}
      </p>
      <ul>
        {report.calls.map((c) => {
          const verdict = c.error ? 'not-run' : c.identical ? 'identical' : 'changed';
          return (
            <li key={c.tool_call_id} class={`replay-call ${verdict}`} data-verdict={verdict}>
              <b>{c.tool_call_id}</b> {c.tool} <code>{showControls(JSON.stringify(c.input))}</code>: {verdict === 'not-run' ? `${t('not re-run')} (${c.error})` : verdict === 'identical' ? t('identical') : t('changed')}
              {verdict === 'changed' && (
                <pre class="diff">
                  {c.missing_refs.map((r) => `- ${r}\n`).join('')}
                  {c.added_refs.map((r) => `+ ${r}\n`).join('')}
                  {c.reordered ? `~ ${t('shared refs reordered')}\n` : ''}
                  {!c.added_refs.length && !c.missing_refs.length && !c.reordered ? `~ ${t('same refs, payload differs')} (${c.recorded.payload_hash.slice(0, 12)} → ${c.replayed.payload_hash.slice(0, 12)})\n` : ''}
                </pre>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
