import { locationLabel } from '../src/shared/location-label';
import type { BlockLocation } from '../src/shared/block-location';
import type { Document } from '../src/shared/document';
import type { FailedDocument } from '../src/shared/failed-document';
import { post } from './vscode-api';

function where(l: BlockLocation): string {
  if (l.kind === 'page') return `p. ${l.page}`;
  if (l.kind === 'lines') return l.line_start === l.line_end ? `L${l.line_start}` : `L${l.line_start}–${l.line_end}`;
  return locationLabel(l);
}

export function Inspector({ document: d }: { document: Document }) {
  const tokens = d.blocks.reduce((n, b) => n + b.token_count, 0);
  return (
    <main>
      <h1>{d.title}</h1>
      <p class="meta">
        {d.doc_id} · {d.format} · {d.lang} · {d.sections.length} sections · {d.blocks.length} blocks · {tokens} tokens
      </p>
      <h2>Sections</h2>
      <ul class="sections">
        {d.sections.map((s) => (
          <li key={s.path} style={{ paddingLeft: `${(s.depth - 1) * 16}px` }}>
            <span class="title">{s.title}</span>{' '}
            <span class="meta">
              {s.direct_blocks}/{s.subtree_blocks} blocks · {s.subtree_tokens} tokens
            </span>
          </li>
        ))}
      </ul>
      <h2>Blocks</h2>
      <ol class="blocks">
        {d.blocks.map((b) => (
          <li key={b.block_id}>
            <button type="button" onClick={() => post({ type: 'open-block', block_index: b.block_index })}>
              {where(b.location)}
            </button>{' '}
            <span class="meta">
              {b.block_id} · {b.token_count} tokens · {b.section_path}
            </span>
            <pre>{b.text}</pre>
          </li>
        ))}
      </ol>
    </main>
  );
}

export function Failure({ failure }: { failure: FailedDocument }) {
  return (
    <main>
      <h1>Not indexable</h1>
      <p>{failure.path}</p>
      <p>
        Failed at <b>{failure.stage}</b> ({failure.code}): {failure.message}
      </p>
    </main>
  );
}
