import { memo } from 'preact/compat';
import { useMemo, useRef, useState } from 'preact/hooks';
import type { Citation } from '../../src/shared/run-result';
import { type CiteView, type Split, renderBlock, splitBlocks } from './markdown';
import { showControls } from '../../src/shared/inert-text';
import type { Preview } from './chat-controller';
import type { Strings } from './strings';
import { useController, useStrings } from './use-chat';

/** One finished block: memoised on its text and the citation state, so streaming re-renders only the tail. */
const Block = memo(function Block({ text, cites, S }: { text: string; cites: CiteView; S: Strings }) {
  const html = useMemo(() => renderBlock(text, cites, S), [text, cites, S]);
  return <div class="md-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

/**
 * Finished blocks in groups, each memoised on its blocks' texts: at 20k tokens an answer has ~1,000
 * blocks, and diffing a thousand memo'd children per delta cost more than the tail's own render.
 */
const GROUP = 32;
const sameBlocks = (a: { blocks: string[]; cites: CiteView; S: Strings }, b: { blocks: string[]; cites: CiteView; S: Strings }) => a.cites === b.cites && a.S === b.S && a.blocks.length === b.blocks.length && a.blocks.every((x, i) => x === b.blocks[i]);
const Group = memo(function Group({ blocks, cites, S }: { blocks: string[]; cites: CiteView; S: Strings }) {
  return (
    <>
      {blocks.map((b, i) => (
        <Block key={i} text={b} cites={cites} S={S} />
      ))}
    </>
  );
}, sameBlocks);

function chunk<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

type PreviewState = { ref: string; data: Preview | null; error: string | null } | null;

/**
 * The answer as Markdown blocks with citation chips. Chips and links are plain elements inside the
 * sanitised HTML, handled here by delegation: a chip's hover or focus shows the block's text below the
 * answer (no positioned tooltip: positioning would need inline styles the CSP forbids), its click opens
 * the source; a link's click asks the host to open it.
 */
export function AnswerView({ text, cites, snapshotId, previewId }: { text: string; cites: CiteView; snapshotId: string | null; previewId: string }) {
  const ctl = useController();
  const S = useStrings();
  const last = useRef<Split | undefined>(undefined);
  const split = useMemo(() => (last.current = splitBlocks(text, last.current)), [text]);
  const groups = useMemo(() => chunk(split.done, GROUP), [split.done]);
  const [preview, setPreview] = useState<PreviewState>(null);
  const citation = (el: Element | null): Citation | null => {
    const ref = el?.closest('.chip')?.getAttribute('data-ref');
    return (ref && cites.verified?.find((c) => c.ref === ref)) || null;
  };
  const target = (c: Citation) => ({ doc_id: c.doc_id, block_id: c.block_id, ...(snapshotId ? { snapshot_id: snapshotId } : {}) });
  const show = (el: EventTarget | null) => {
    const c = citation(el as Element | null);
    if (!c || preview?.ref === c.ref) return;
    setPreview({ ref: c.ref, data: null, error: null });
    ctl.preview(target(c)).then(
      (data) => setPreview((p) => (p?.ref === c.ref ? { ref: c.ref, data, error: null } : p)),
      (e: unknown) => setPreview((p) => (p?.ref === c.ref ? { ref: c.ref, data: null, error: e instanceof Error ? e.message : String(e) } : p)),
    );
  };
  const activate = (el: Element) => {
    const c = citation(el);
    if (c) return void ctl.openCitation(target(c));
    const url = el.closest('.ext-link')?.getAttribute('data-url');
    if (url) void ctl.openLink(url);
  };
  return (
    <div>
      <div
        class="answer"
        aria-describedby={preview ? previewId : undefined}
        onClick={(e) => {
          activate(e.target as Element);
          e.preventDefault();
        }}
        onKeyDown={(e) => {
          const el = e.target as Element;
          if ((e.key === 'Enter' || e.key === ' ') && el.classList.contains('ext-link')) {
            e.preventDefault();
            activate(el);
          }
        }}
        onMouseOver={(e) => show(e.target)}
        onFocusIn={(e) => show(e.target)}
      >
        {groups.map((g, i) => (
          <Group key={i} blocks={g} cites={cites} S={S} />
        ))}
        {split.tail.trim() && <Block text={split.tail} cites={cites} S={S} />}
      </div>
      {preview && <PreviewBox id={previewId} state={preview} S={S} />}
    </div>
  );
}

function PreviewBox({ id, state, S }: { id: string; state: NonNullable<PreviewState>; S: Strings }) {
  const d = state.data;
  return (
    <aside class="preview" id={id} role="note" aria-live="polite">
      {state.error ? (
        <p class="preview-warn">{S.error(state.error)}</p>
      ) : !d ? (
        <p>{S.previewLoading}</p>
      ) : !d.found ? (
        <p class="preview-warn">{S.previewMissing}</p>
      ) : (
        <>
          <p class="preview-head">
            {showControls(d.doc_title)} · § {showControls(d.section_path)}
          </p>
          {!d.file_exists && <p class="preview-warn">{S.previewFileGone}</p>}
          <p class="preview-text">{showControls(d.text)}</p>
        </>
      )}
    </aside>
  );
}
