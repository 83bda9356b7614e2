import type { ConversationSummary } from '../../src/shared/conversation';
import { showControls } from '../../src/shared/inert-text';
import { useController, useLang, useStrings } from './use-chat';

/** The workspace's earlier conversations: open one, or delete it. */
export function HistoryView({ conversations, current, onOpened }: { conversations: readonly ConversationSummary[]; current: string | null; onOpened: () => void }) {
  const ctl = useController();
  const S = useStrings();
  const lang = useLang();
  if (conversations.length === 0) return <p class="history-empty">{S.historyEmpty}</p>;
  return (
    <ul class="history" aria-label={S.history}>
      {conversations.map((c) => (
        <li key={c.id} class={c.id === current ? 'current' : ''}>
          <button
            type="button"
            class="history-open"
            aria-current={c.id === current ? 'true' : undefined}
            onClick={async () => {
              await ctl.openConversation(c.id);
              onOpened();
            }}
          >
            <span class="history-title">{showControls(c.title)}</span>
            <span class="history-meta">
              {S.turns(c.turns)} · {new Date(c.updated_at).toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-US')}
            </span>
          </button>
          <button type="button" class="icon" aria-label={S.deleteLabel(c.title)} title={S.delete} onClick={() => void ctl.deleteConversation(c.id)}>
            <span class="codicon codicon-trash" aria-hidden="true"></span>
          </button>
        </li>
      ))}
    </ul>
  );
}
