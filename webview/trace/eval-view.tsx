import type { EvalDiffView, EvalView } from '../../src/shared/trace-protocol';
import { t } from '../../src/shared/trace-strings';
import { post } from './api';
import { ManifestView } from './manifest-view';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** PASS: every repeat passed; FLIP: the repeats disagree; FAIL: every repeat failed. */
export const verdictOf = (c: EvalView['cases'][number]) => (c.flips ? 'FLIP' : c.passed === c.runs.length ? 'PASS' : 'FAIL');

export function EvalResult({ record: r }: { record: EvalView }) {
  const types = Object.entries(r.summary.failure_types).filter(([, n]) => n > 0);
  return (
    <main class="eval">
      <h1>{t('Evaluation {0}', r.eval_id)}</h1>
      <p class="muted">
        {r.goldset.path} · {t('{0} cases', r.goldset.cases)} · {t('{0} repeats', r.repeat)} · {r.created_at}
      </p>
      <p class="big" data-testid="pass-rate">
        {t('pass rate')} {r.summary.passed}/{r.summary.runs} ({pct(r.summary.pass_rate)})
      </p>
      {types.length > 0 && <p>{t('failures')}: {types.map(([k, n]) => `${k} ${n}`).join(', ')}</p>}
      {r.config_hashes.length > 1 && <p class="warning">{t('The configuration changed during this evaluation ({0} configurations).', r.config_hashes.length)}</p>}
      <table class="cases">
        <thead>
          <tr>
            <th>{t('verdict')}</th>
            <th>{t('case')}</th>
            <th>{t('passed')}</th>
            <th>{t('failure types')}</th>
            <th>{t('runs')}</th>
          </tr>
        </thead>
        <tbody>
          {r.cases.map((c) => {
            const v = verdictOf(c);
            const kinds = [...new Set(c.runs.flatMap((x) => x.failures.map((f) => `${f.type}: ${f.detail}`)))];
            return (
              <tr key={c.id} class={`verdict-${v}`} data-case={c.id} data-verdict={v}>
                <td>
                  <b>{v}</b>
                </td>
                <td title={c.question}>{c.id}</td>
                <td>
                  {c.passed}/{c.runs.length}
                </td>
                <td>{kinds.join('; ')}</td>
                <td>
                  {c.runs.map((x) =>
                    x.run_id ? (
                      <button key={x.repeat} type="button" class="link" title={t('Open the trace of this run')} onClick={() => post({ type: 'open-trace', run_id: x.run_id! })}>
                        {x.pass ? '✓' : '✗'} {x.repeat}
                      </button>
                    ) : (
                      <span key={x.repeat}>✗ {x.repeat}</span>
                    ),
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {r.manifest && <ManifestView manifest={r.manifest} />}
    </main>
  );
}

export function EvalDiff({ diff: d }: { diff: EvalDiffView }) {
  const moved = d.cases.filter((c) => c.change !== 'same');
  const sign = d.pass_rate.delta > 0 ? '+' : '';
  return (
    <main class="eval">
      <h1>{t('{0} compared with {1}', d.b, d.a)}</h1>
      <p class="big" data-testid="pass-rate">
        {t('pass rate')} {pct(d.pass_rate.a)} → {pct(d.pass_rate.b)} ({sign}
        {(d.pass_rate.delta * 100).toFixed(1)} {t('points')})
      </p>
      <h2>{t('Cases that moved')}</h2>
      {moved.length === 0 ? (
        <p>{t('No case changed.')}</p>
      ) : (
        <table class="cases">
          <tbody>
            {moved.map((c) => (
              <tr key={c.id} data-case={c.id} data-change={c.change}>
                <td>
                  <b>{t(c.change)}</b>
                </td>
                <td>{c.id}</td>
                <td>
                  {c.a ?? '-'} → {c.b ?? '-'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>{t('What differs between the runs')}</h2>
      {d.manifest_changes.length === 0 ? (
        <p>{t('Same manifest.')}</p>
      ) : (
        <table class="manifest-changes" data-testid="manifest-changes">
          <tbody>
            {d.manifest_changes.map((m) => (
              <tr key={m.field}>
                <th scope="row">{m.field}</th>
                <td>
                  <code>{JSON.stringify(m.a)}</code> → <code>{JSON.stringify(m.b)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
