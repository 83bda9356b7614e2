import type { ChatModel } from '../harness/loop-context';
import { ChatError, type ChatMessage, type ChatResult, type ChatUsage, type CompleteOptions } from '../harness/model-client';
import { ThinkSplitter } from '../harness/think-split';
import type { HostChatModel } from '../app/host-model';

/**
 * What the adapter needs of one VS Code language model (vscode.LanguageModelChat behind lm-models.ts):
 * a streamed request over plain user/assistant turns, the model's own token counter, and who it is.
 * Kept free of `vscode` so the adapter's rules are tested in plain Node.
 */
export interface LmPort {
  readonly id: string;
  readonly vendor: string;
  readonly name: string;
  readonly maxInputTokens: number;
  /** The model's text as it streams; throws an LmRefusal for a LanguageModelError. */
  send(messages: ReadonlyArray<{ role: 'user' | 'assistant'; content: string }>, signal: AbortSignal | undefined): AsyncIterable<string>;
  countTokens(text: string, signal: AbortSignal | undefined): Promise<number>;
}

/** A vscode.LanguageModelError, as data: its code (NoPermissions, Blocked, NotFound, or another) and message. */
export class LmRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The Language Model API has no system role: DocQA's system prompt goes first, as a user message of its
 * own (kept apart from the question, so the model still sees where the instructions end).
 */
export function lmMessages(messages: readonly ChatMessage[]): Array<{ role: 'user' | 'assistant'; content: string }> {
  return messages.map((m) => ({ role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content }));
}

/**
 * How the vscode-lm path words what it tells a person: `vscode.l10n.t` in VS Code (the UI language,
 * placeholders {0}, {1}…; l10n/bundle.l10n.*.json), `asWritten` (English) where there is no VS Code.
 */
export type Translate = (message: string, ...args: Array<string | number>) => string;
export const asWritten: Translate = (message, ...args) => message.replace(/\{(\d+)\}/g, (whole, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : whole));

/** A refusal in the release's words: what happened and what to do, for a person using VS Code's models. */
export function refusalError(r: LmRefusal, model: string, t: Translate = asWritten): ChatError {
  switch (r.code) {
    case 'NoPermissions':
      return new ChatError('auth', t('VS Code did not allow DocQA to use the language model {0} ({1}). Allow it when VS Code asks (run "DocQA: Pick VS Code Language Model" again), or set DocQA\'s chat provider back to its own endpoint (docqa.chat.provider).', model, r.message), false);
    case 'Blocked':
      return new ChatError('rate_limited', t('The language model {0} refused the request: its quota or rate limit is reached ({1}). Wait, check your plan\'s usage, or pick another model with "DocQA: Pick VS Code Language Model".', model, r.message), false);
    case 'NotFound':
      return new ChatError('not_found', t('The language model {0} is no longer available in VS Code ({1}). Pick another one with "DocQA: Pick VS Code Language Model".', model, r.message), false);
    default:
      return new ChatError('rejected', t('The language model {0} failed ({1}: {2}). Try again, or pick another model with "DocQA: Pick VS Code Language Model".', model, r.code, r.message), true);
  }
}

/**
 * The agent loop's ChatModel over a VS Code language model: streams the answer (a `<think>` part kept
 * apart, as with a local model), and reports usage counted with the model's own counter, since the API
 * gives none. A LanguageModelError becomes a ChatError whose message is the release's words.
 */
export class LmChatModel implements ChatModel {
  constructor(
    private readonly port: LmPort,
    private readonly t: Translate = asWritten,
  ) {}

  async complete(messages: readonly ChatMessage[], opts: CompleteOptions = {}): Promise<ChatResult> {
    const { port, t } = this;
    const turns = lmMessages(messages);
    let content = '';
    const think = new ThinkSplitter();
    try {
      for await (const text of port.send(turns, opts.signal)) {
        content += text;
        const shown = think.push(text);
        if (shown) opts.onDelta?.(shown);
      }
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (err instanceof LmRefusal) throw refusalError(err, port.name, t);
      if (err instanceof ChatError) throw err;
      throw new ChatError('bad_response', t('The language model {0} broke off: {1}', port.name, err instanceof Error ? err.message : String(err)), true, null, null, content ? { content, reasoning: '' } : null);
    }
    if (opts.signal?.aborted) throw opts.signal.reason;
    const split = think.finish();
    if (!split.content.trim() && !split.reasoning.trim()) throw new ChatError('empty_answer', t('The language model {0} answered nothing. Try again, or pick another model with "DocQA: Pick VS Code Language Model".', port.name), true);
    return { content: split.content, reasoning: split.reasoning, finish_reason: 'stop', usage: await this.usage(turns, content, opts.signal), model: port.name };
  }

  /** Prompt and completion tokens by the model's own counter (each message counted as the model will see it). */
  private async usage(turns: ReadonlyArray<{ content: string }>, completion: string, signal: AbortSignal | undefined): Promise<ChatUsage> {
    const prompt = (await Promise.all(turns.map((t) => this.port.countTokens(t.content, signal)))).reduce((a, b) => a + b, 0);
    const out = await this.port.countTokens(completion, signal);
    return { prompt_tokens: prompt, completion_tokens: out, total_tokens: prompt + out, prompt_cache_hit_tokens: null, prompt_cache_miss_tokens: null };
  }
}

/** The run's host model for a VS Code language model: named "vendor/id" in the trace; its words to people through `t`. */
export function hostModelOf(port: LmPort, t: Translate = asWritten): HostChatModel {
  return { model: new LmChatModel(port, t), provider: 'vscode-lm', name: `${port.vendor}/${port.id}`, maxInputTokens: port.maxInputTokens > 0 ? port.maxInputTokens : null };
}
