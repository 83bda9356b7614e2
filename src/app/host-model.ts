import type { ChatModel } from '../harness/loop-context';

/**
 * A chat model the host lends the run instead of DocQA's configured endpoint — in VS Code, one of the
 * editor's own language models (vscode.lm), so no DocQA chat key is needed. The agent loop calls it
 * through the same ChatModel seam as the endpoint's client; the trace's manifest names who served it.
 */
export interface HostChatModel {
  model: ChatModel;
  /** Who serves it, as the manifest records it ("vscode-lm"). */
  provider: string;
  /** Which model ("copilot/gpt-4o"): the manifest's chat model. */
  name: string;
  /** The model's own input limit in tokens, when it says: the run's context budget never exceeds it. */
  maxInputTokens: number | null;
}

/** Where a host model comes from: asked once per question (null: DocQA's own endpoint answers). */
export type HostModelSource = (signal?: AbortSignal) => Promise<HostChatModel | null>;
