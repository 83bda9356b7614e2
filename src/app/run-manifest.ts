import crypto from 'node:crypto';
import type { ContextWindow } from '../common/served-window';
import type { PromptBundle } from '../harness/prompt-bundle';
import type { SnapshotManifest } from '../index/store/snapshot-manifest';
import { TOOL_CONTRACT_VERSION } from '../tools/tool';
import { stableJson } from '../common/stable-json';
import type { RunManifest } from '../shared/trace-model';
import type { AppSettings } from './settings';

/** The Thought/Action/Observation protocol with the progress envelope; bumped when its wire form changes. */
export const LOOP_PROTOCOL_VERSION = '1';

declare const __DOCQA_BUILD__: string | undefined;

/** The build's source hash (set by esbuild); "source" when running unbundled from the TypeScript sources. */
export const BUILD_HASH: string = typeof __DOCQA_BUILD__ === 'string' ? __DOCQA_BUILD__ : 'source';

export interface ManifestInput {
  appVersion: string;
  bundle: PromptBundle;
  tools: readonly string[];
  snapshot: SnapshotManifest;
  /** The run's settings: the chat model's, and the run's limits. */
  settings: Pick<AppSettings, 'chat' | 'run'>;
  /** A chat model served locally: the window behind the context budget. */
  contextWindow?: ContextWindow | null;
  /** Who served the chat model when it is not DocQA's endpoint (a VS Code language model: "vscode-lm"). */
  chatProvider?: string;
}

/** The conversation template's hash, and its lender when an older bundle borrowed the baseline's. */
function borrowedConversation(b: PromptBundle): { conversation_hash?: string; conversation_from?: string } {
  if (!b.conversation) return {};
  return { conversation_hash: b.conversation.hash, ...(b.conversation.from !== b.id ? { conversation_from: b.conversation.from } : {}) };
}

/** Everything that decides a run's behaviour, and its hash. Holds no key: keys are not configuration. */
export function buildRunManifest(i: ManifestInput): RunManifest {
  const e = i.snapshot.embedding;
  const { chat, run } = i.settings;
  const body: Omit<RunManifest, 'app' | 'config_hash'> = {
    prompt_bundle: { id: i.bundle.id, version: i.bundle.version, hash: i.bundle.hash, parent: i.bundle.parent, language: i.bundle.language, ...(i.bundle.final ? { final_hash: i.bundle.final.hash } : {}), ...(i.bundle.final && i.bundle.final.from !== i.bundle.id ? { final_from: i.bundle.final.from } : {}), ...borrowedConversation(i.bundle) },
    loop_protocol_version: LOOP_PROTOCOL_VERSION,
    tool_contract_version: TOOL_CONTRACT_VERSION,
    tools: [...i.tools],
    chat: { ...(i.chatProvider ? { provider: i.chatProvider } : {}), base_url: chat.base_url, model: chat.model, thinking: chat.thinking, temperature: chat.temperature, max_output_tokens: chat.max_output_tokens },
    embedding: e.provider === 'none' ? { provider: 'none', model: null, dimensions: null } : { provider: e.provider, model: e.model, dimensions: e.dimensions },
    snapshot: { id: i.snapshot.id, completeness: i.snapshot.state === 'ready_partial' ? 'partial' : 'complete', failed_documents: i.snapshot.failed_documents.length },
    budgets: { ...run.budgets },
    thresholds: { ...run.thresholds },
    max_conversation_tokens: run.max_conversation_tokens,
    ...(i.contextWindow ? { context_window: i.contextWindow } : {}),
  };
  const config_hash = crypto.createHash('sha256').update(stableJson(body)).digest('hex');
  return { app: { name: 'docqa', version: i.appVersion, build: BUILD_HASH }, ...body, config_hash };
}
