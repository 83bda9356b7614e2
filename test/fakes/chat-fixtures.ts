import type { AskEvent } from '../../src/shared/ask-event';
import type { Conversation, ConversationTurn } from '../../src/shared/conversation';
import { type AgentResult, type Citation, type Ledger, stepEvent } from '../../src/shared/run-result';
import { CONVERSATION_FORMAT_VERSION } from '../../src/shared/conversation';
import type { BlockBrief, StepOutcome, StepScope } from '../../src/shared/step-record';
import { type UnwordedOutcome, wordedOutcome, wordedScope } from '../../src/tools/registry';

/**
 * Chat data as the host would send it: a run's events in order and a stored conversation, shaped by the
 * real schemas (the protocol tests parse them), for the protocol's unit tests and the webview's tests.
 */
export const CITE_A: Citation = { ref: 'cell#b3', doc_id: 'cell', block_id: 'b3', doc_title: 'Cell biology', source_label: 'notes', section_path: 'Membranes > Osmosis' };
export const CITE_B: Citation = { ref: 'cell#b4', doc_id: 'cell', block_id: 'b4', doc_title: 'Cell biology', source_label: 'notes', section_path: 'Membranes > Diffusion' };

/** A step's scope, in its tool's words (as a run writes it). */
export const scope = (tool: string, text: string | null, sections: string[] = [], titles: string[] = [], documents?: StepScope['documents']): StepScope =>
  wordedScope({
    tool,
    documents: documents ?? (titles.length ? { count: titles.length, of: 42, all: false, titles } : { count: 42, of: 42, all: true, titles: [] }),
    sections,
    text,
    filters: {},
  });
/** A step's outcome over its scope, in its tool's words. */
export const outcome = (s: StepScope, o: Partial<UnwordedOutcome>): StepOutcome =>
  wordedOutcome(s, { kind: 'ok', blocks: 0, hits: 0, hit_blocks: 0, hit_documents: 0, documents: 0, sections: 0, empty_reason: null, error: null, not_admitted: null, ...o });

const SCAN = scope('scan_term', 'osmosis');
const READ = scope('list_blocks', null, ['Membranes > Osmosis'], ['Cell biology']);
const LIST = scope('list_documents', null);

export const LEDGER: Ledger = { chat_tokens: 5321, max_request_tokens: 400000, largest_context: 3100, max_context_tokens: 100000, tool_calls: 3, max_tool_calls: 8, model_calls: 4, retries: 1, embedding_tokens: 12, estimated: false };

export function result(o: Partial<AgentResult> = {}): AgentResult {
  return {
    release: { status: 'SUCCESS', reason: null, detail: null, failure: null },
    stop_reason: 'INFORMATION_SATURATED',
    answer: 'Osmosis moves **water** across a membrane.【来源:cell#b3】\n\nDiffusion moves solutes.【来源:cell#b4】',
    citations: [CITE_A, CITE_B],
    removed_citations: [{ ref: 'ghost#b9', reason: 'not_returned' }],
    counts: { agent_turns: 4, tool_calls: 3, model_calls: 4, rejected_requests: 0 },
    tokens: { prompt: 5000, completion: 321, embedding: 12, estimated: { chat: false, embedding: false } },
    ledger: LEDGER,
    progress: {
      stop_reason: 'INFORMATION_SATURATED',
      sources: [{ ref: 'cell#b3', doc_title: 'Cell biology', section_path: 'Membranes > Osmosis' }],
      facts: [
        { tool_call_id: 'c2', scope: SCAN, outcome: outcome(SCAN, { hits: 17, hit_blocks: 5, hit_documents: 2 }) },
        { tool_call_id: 'c3', scope: READ, outcome: outcome(READ, { blocks: 12 }) },
      ],
      scopes_checked: ['scan_term:osmosis', 'list_blocks:cell'],
      limitations: [],
    },
    ...o,
  };
}

/** A step's two events, as the harness tells its record: requested, then its result. */
function stepEvents(tool_call_id: string, scope_key: string, s: StepScope, o: StepOutcome, blocks: BlockBrief[] = []): AskEvent[] {
  const requested = { tool_call_id, tool: s.tool, scope_key, scope: s, outcome: null, blocks: [], doc_ids: [] };
  return [stepEvent(requested), stepEvent({ ...requested, outcome: o, blocks })];
}

/** One successful run, as ask_events carry it: steps, a streamed answer with raw refs, citations, release. */
export function successEvents(answerChunks: string[] = ['Osmosis moves **water** across', ' a membrane.【来源:cell#b3】\n\nDiffusion', ' moves solutes.【来源:cell#b4】【来源:ghost#b9】']): AskEvent[] {
  return [
    { type: 'run_started', run_id: 'run-1', snapshot_id: 'snap-1', lang: 'en', prompt_bundle: { id: 'baseline-en', version: '1', hash: '3f9a1c0de2b74a65' } },
    { type: 'turn_started', turn: 1, final_round: false },
    ...stepEvents('c1', 'k1', LIST, outcome(LIST, { documents: 42 })),
    ...stepEvents('c2', 'k2', SCAN, outcome(SCAN, { hits: 17, hit_blocks: 5, hit_documents: 2 })),
    ...stepEvents('c3', 'k3', READ, outcome(READ, { blocks: 12 }), [{ ref: 'cell#b3', doc_title: 'Cell biology', section_path: 'Membranes > Osmosis', first_line: 'Osmosis is the movement of water.' }]),
    { type: 'ledger', ledger: LEDGER },
    ...answerChunks.map((text): AskEvent => ({ type: 'answer_delta', turn: 4, text })),
    { type: 'citations', verified: [CITE_A, CITE_B], removed: [{ ref: 'ghost#b9', reason: 'not_returned' }] },
    { type: 'release', result: result() },
  ];
}

export function doneTurn(turn_id: string, question: string, r: AgentResult = result()): ConversationTurn {
  return { turn_id, question, lang: 'en', asked_at: '2025-01-01T10:00:00.000Z', state: 'done', run_id: `run-${turn_id}`, snapshot_id: 'snap-1', prompt_bundle: null, steps: [], result: r, error: null };
}

export function conversation(id: string, turns: ConversationTurn[], title = 'Osmosis'): Conversation {
  return { formatVersion: CONVERSATION_FORMAT_VERSION, id, workspace: 'ws', title, created_at: '2025-01-01T10:00:00.000Z', updated_at: '2025-01-01T10:05:00.000Z', turns };
}
