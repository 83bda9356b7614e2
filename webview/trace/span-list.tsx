import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type SpanIndex, type SpanRow, rowWindow, visibleRows } from '../../src/shared/span-rows';
import { showControls } from '../../src/shared/inert-text';
import { t } from '../../src/shared/trace-strings';

/** Every row has this height (px): the window is computed from it, never measured. */
export const ROW_HEIGHT = 24;

const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(1)} ms`);

/**
 * The span tree as a windowed list: only the rows in view (and a few either side) are in the DOM, so a
 * trace of thousands of spans opens and scrolls like a short one. A listbox: arrows move the selection,
 * left/right collapse and expand, Home/End jump.
 */
export function SpanList({ index, selected, onSelect }: { index: SpanIndex; selected: string | null; onSelect: (id: string) => void }) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(480);
  const box = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => visibleRows(index, collapsed), [index, collapsed]);
  const at = selected ? rows.findIndex((r) => r.id === selected) : -1;

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setHeight(el.clientHeight || 480);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const toggle = (r: SpanRow, open?: boolean) => {
    if (!r.childCount) return;
    const next = new Set(collapsed);
    const isOpen = !next.has(r.id);
    if (open ?? !isOpen) next.delete(r.id);
    else next.add(r.id);
    setCollapsed(next);
  };

  /** Moves the selection and keeps it in view. */
  const moveTo = (i: number) => {
    const r = rows[Math.max(0, Math.min(rows.length - 1, i))];
    if (!r) return;
    onSelect(r.id);
    const el = box.current;
    const pos = Math.max(0, Math.min(rows.length - 1, i)) * ROW_HEIGHT;
    if (el && pos < el.scrollTop) el.scrollTop = pos;
    else if (el && pos + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = pos + ROW_HEIGHT - el.clientHeight;
  };

  const onKey = (e: KeyboardEvent) => {
    const r = rows[at];
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveTo(at + 1),
      ArrowUp: () => moveTo(at - 1),
      Home: () => moveTo(0),
      End: () => moveTo(rows.length - 1),
      PageDown: () => moveTo(at + Math.floor(height / ROW_HEIGHT)),
      PageUp: () => moveTo(at - Math.floor(height / ROW_HEIGHT)),
      ArrowRight: () => r && toggle(r, true),
      ArrowLeft: () => {
        if (r && r.childCount && !collapsed.has(r.id)) toggle(r, false);
        else if (r?.parentId) moveTo(rows.findIndex((x) => x.id === r.parentId));
      },
      Enter: () => r && toggle(r),
    };
    const fn = keys[e.key];
    if (fn) {
      e.preventDefault();
      fn();
    }
  };

  const w = rowWindow(rows.length, scrollTop, height, ROW_HEIGHT);
  return (
    <section class="spans">
      <div class="span-head" aria-hidden="true">
        <span>{t('Span')}</span>
        <span>{t('Details')}</span>
        <span>{t('Waterfall ({0})', ms(index.totalMs))}</span>
      </div>
      <div
        ref={box}
        class="span-list"
        role="listbox"
        tabIndex={0}
        aria-label={t('Spans')}
        aria-activedescendant={selected ? `span-${selected}` : undefined}
        data-testid="span-list"
        data-rows={rows.length}
        onScroll={(e) => setScrollTop((e.target as HTMLDivElement).scrollTop)}
        onKeyDown={onKey}
      >
        <div style={{ height: `${w.padTop}px` }} />
        {rows.slice(w.start, w.end).map((r) => (
          <Row key={r.id} row={r} selected={r.id === selected} open={!collapsed.has(r.id)} onClick={() => onSelect(r.id)} onToggle={() => toggle(r)} />
        ))}
        <div style={{ height: `${w.padBottom}px` }} />
      </div>
    </section>
  );
}

function Row({ row: r, selected, open, onClick, onToggle }: { row: SpanRow; selected: boolean; open: boolean; onClick: () => void; onToggle: () => void }) {
  const details: string[] = [ms(r.durationMs)];
  if (r.tokens && (r.tokens.prompt !== null || r.tokens.completion !== null)) details.push(`${t('tokens')} ${r.tokens.prompt ?? '?'}+${r.tokens.completion ?? '?'}`);
  if (r.decision) details.push(r.decision);
  if (r.stopReason) details.push(`${t('stop')} ${r.stopReason}`);
  return (
    <div
      id={`span-${r.id}`}
      role="option"
      aria-selected={selected}
      aria-level={r.depth + 1}
      aria-expanded={r.childCount ? open : undefined}
      class={`span-row kind-${r.kind} status-${r.status}${selected ? ' selected' : ''}`}
      data-kind={r.kind}
      data-span-id={r.id}
      style={{ height: `${ROW_HEIGHT}px` }}
      onClick={onClick}
    >
      <span class="name" style={{ paddingLeft: `${r.depth * 14}px` }}>
        <span class={`twisty${r.childCount ? '' : ' leaf'}`} onClick={(e) => (e.stopPropagation(), onToggle())} aria-hidden="true">
          {r.childCount ? (open ? '▾' : '▸') : ''}
        </span>
        <span class="kind">{r.kind}</span> {showControls(r.name)}
        {r.status !== 'ok' && <span class={`badge ${r.status}`}>{r.status}</span>}
        {r.marks.map((m, i) => (
          <span key={i} class={`badge gain gain-${m.value}`} title={m.by === 'harness' ? t('decided by the harness') : t('decided by the model')}>
            {m.value} ({m.by === 'harness' ? t('harness') : t('model')})
          </span>
        ))}
      </span>
      <span class="info">{details.join(' · ')}</span>
      <span class="waterfall">
        <span class="bar" style={{ left: `${(r.offset * 100).toFixed(3)}%`, width: `max(2px, ${(r.width * 100).toFixed(3)}%)` }} />
      </span>
    </div>
  );
}
