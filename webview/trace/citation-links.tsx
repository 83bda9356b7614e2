import { post } from './api';
import { t } from '../../src/shared/trace-strings';

/**
 * The citations a release span kept (its `citations` attribute: refs `doc_id#block_id`), each a link that
 * opens the cited block at its spot, whatever the format, as a chip in the chat does (docqa.openCitation;
 * the host looks the block up in the snapshot the run used).
 */
export function CitationLinks({ refs }: { refs: unknown }) {
  const list = Array.isArray(refs) ? refs.filter((r): r is string => typeof r === 'string' && /^[^#\s]+#[^#\s]+$/.test(r)) : [];
  if (!list.length) return null;
  return (
    <div class="citations" data-testid="citation-links">
      <h3>{t('Citations')}</h3>
      <ul>
        {list.map((ref) => (
          <li key={ref}>
            <button type="button" class="link" title={t('Open the cited passage')} onClick={() => post({ type: 'open-citation', ref })}>
              {ref}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
