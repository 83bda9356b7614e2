import { useMemo, useState } from 'preact/hooks';
import type { BudgetCheck, SpanRow } from '../../src/shared/span-rows';
import type { TraceData } from '../../src/shared/trace-protocol';
import { showControls } from '../../src/shared/inert-text';
import { t } from '../../src/shared/trace-strings';
import { CitationLinks } from './citation-links';

// Attributes and artifacts hold document text: bidi controls are shown as tags, as in the chat.
const show = (v: unknown) => showControls(typeof v === 'string' ? v : JSON.stringify(v, null, 1));

/** `text` with every case-insensitive occurrence of `query` marked. */
function Highlight({ text: raw, query }: { text: string; query: string }) {
  const text = showControls(raw);
  if (!query) return <>{text}</>;
  const parts: Array<string | { hit: string }> = [];
  const lower = text.toLowerCase();
  const q = query.toLowerCase();
  let i = 0;
  for (let at = lower.indexOf(q); at >= 0; at = lower.indexOf(q, i)) {
    parts.push(text.slice(i, at), { hit: text.slice(at, at + q.length) });
    i = at + q.length;
  }
  parts.push(text.slice(i));
  return <>{parts.map((p, k) => (typeof p === 'string' ? p : <mark key={k}>{p.hit}</mark>))}</>;
}

function Budget({ checks }: { checks: BudgetCheck[] }) {
  const label = (l: string) => t(l);
  return (
    <ul class="budget" data-testid="budget-arithmetic">
      {checks.map((c, i) => (
        <li key={i} class={c.fits ? 'fits' : 'exceeds'}>
          {c.terms.map((x) => `${label(x.label)} ${x.value}`).join(' + ')} = {c.total} {c.fits ? '≤' : '>'} {label(c.limit.label)} {c.limit.value} {c.fits ? t('fits') : t('exceeds')}
        </li>
      ))}
    </ul>
  );
}

/**
 * The selected span: its attributes as recorded, its budget arithmetic, and (full traces) its artifacts —
 * the exact prompt, model output, reasoning, tool payload or answer, redacted on disk. A search box finds
 * text in every artifact of the trace; a hit selects its span.
 */
export function SpanDetail({ trace, row, onSelect }: { trace: TraceData; row: SpanRow | null; onSelect: (id: string) => void }) {
  const [query, setQuery] = useState('');
  const span = row ? trace.spans.find((s) => s.span_id === row.id) : undefined;
  const full = trace.meta?.mode === 'full' || trace.artifacts.length > 0;
  const own = useMemo(() => (span ? trace.artifacts.filter((a) => a.span_id === span.span_id) : []), [trace, span]);
  const hits = useMemo(() => (query.length >= 2 ? trace.artifacts.filter((a) => a.content.toLowerCase().includes(query.toLowerCase())) : []), [trace, query]);
  const spanName = (id: string) => trace.spans.find((s) => s.span_id === id)?.name ?? id;
  return (
    <section class="detail" aria-label={t('Selected span')} data-testid="span-detail">
      {span && row ? (
        <>
          <h2>
            {span.name} <span class="muted">{span.kind} · {span.status}</span>
          </h2>
          {row.budget.length > 0 && <Budget checks={row.budget} />}
          <table class="attributes" data-testid="attributes">
            <tbody>
              {Object.entries(span.attributes).map(([k, v]) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td>
                    <code>{show(v)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <CitationLinks refs={span.attributes.citations} />
        </>
      ) : (
        <p class="muted">{t('Select a span to see its attributes.')}</p>
      )}
      {full ? (
        <div class="artifacts" data-testid="artifacts">
          <h3>{t('Artifacts')}</h3>
          <input type="search" placeholder={t('Search every artifact')} aria-label={t('Search every artifact')} value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} />
          {query.length >= 2 && (
            <ul class="hits" data-testid="artifact-hits">
              {hits.length === 0 && <li class="muted">{t('No artifact contains “{0}”.', query)}</li>}
              {hits.map((a) => (
                <li key={a.artifact_id}>
                  <button type="button" class="link" onClick={() => onSelect(a.span_id)}>
                    {a.kind} · {spanName(a.span_id)}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {own.length === 0 && <p class="muted">{t('This span has no artifacts.')}</p>}
          {own.map((a) => (
            <details key={a.artifact_id} class="artifact" data-artifact-kind={a.kind} open={Boolean(query) && a.content.toLowerCase().includes(query.toLowerCase())}>
              <summary>
                {a.kind} <span class="muted">{t('{0} characters', a.content.length)}</span>
              </summary>
              <pre>
                <Highlight text={a.content} query={query.length >= 2 ? query : ''} />
              </pre>
            </details>
          ))}
        </div>
      ) : (
        <p class="muted" data-testid="no-artifacts">{t('A metadata trace keeps no prompts, outputs or payloads; ask again with docqa.trace.mode set to "full" to see them.')}</p>
      )}
    </section>
  );
}
