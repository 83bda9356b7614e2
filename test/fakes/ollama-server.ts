/**
 * A fake Ollama on 127.0.0.1: its own API as Ollama documents it (`GET /api/version`, `/api/tags`,
 * `/api/ps`, `POST /api/show`, `POST /api/chat` streaming newline-delimited JSON, a load on an empty
 * `messages`) and its OpenAI-compatible one under /v1 (`/v1/models`, and chat, streaming and
 * embeddings through the shared fake, FakeOpenAIServer). Like Ollama, every model runs with a window:
 * `options.num_ctx` when /api/chat names one, else the Modelfile's num_ctx, else the server's default
 * (4,096), never more than the model's trained maximum — and a longer prompt is cut silently (served-window.ts).
 * Every prompt it served is recorded with its window and whether it was cut.
 */
import type http from 'node:http';
import { FakeOpenAIServer, type FakeServerOptions } from './openai-server';
import { type Message, serve } from './served-window';

export interface FakeOllamaModel {
  name: string;
  kind: 'chat' | 'embedding';
  /** Trained maximum (`model_info.<arch>.context_length`). */
  contextLength: number;
  /** An embedding model's vector size (`model_info.<arch>.embedding_length`). */
  embeddingLength?: number;
  /** The Modelfile's num_ctx (`parameters`), when it sets one. */
  numCtx?: number;
  thinking?: boolean;
}

export interface FakeOllamaOptions extends FakeServerOptions {
  models: FakeOllamaModel[];
  /** The window a model runs with when nothing names one (OLLAMA_CONTEXT_LENGTH; 4,096 on most machines). */
  defaultContext?: number;
  /** The model's tokens per o200k token (its own tokenizer). */
  tokenRatio?: number;
  /** How long loading a model takes. */
  loadDelayMs?: number;
}

export interface ServedPrompt {
  path: string;
  model: string;
  window: number;
  sent_tokens: number;
  read_tokens: number;
  cut: boolean;
}

const full = (name: string) => (name.includes(':') ? name : `${name}:latest`);

export class FakeOllamaServer extends FakeOpenAIServer {
  /** Models in memory and the window each was loaded with (as `/api/ps` reports them). */
  readonly running = new Map<string, number>();
  readonly loads: Array<{ model: string; window: number }> = [];
  readonly served: ServedPrompt[] = [];

  constructor(readonly o: FakeOllamaOptions) {
    super({ ...o, dimensions: o.dimensions ?? o.models.find((m) => m.embeddingLength)?.embeddingLength });
  }

  /** The prompts the model read cut (what DocQA must never let happen). */
  get cuts(): ServedPrompt[] {
    return this.served.filter((s) => s.cut);
  }

  private model(name: unknown): FakeOllamaModel | undefined {
    return typeof name === 'string' ? this.o.models.find((m) => full(m.name) === full(name)) : undefined;
  }

  private async load(m: FakeOllamaModel, window: number): Promise<void> {
    if (this.running.get(full(m.name)) === window) return;
    if (this.o.loadDelayMs) await new Promise((r) => setTimeout(r, this.o.loadDelayMs));
    this.loads.push({ model: full(m.name), window });
    this.running.set(full(m.name), window);
  }

  /** The window a request runs the model with, as Ollama picks it. */
  private windowFor(m: FakeOllamaModel, numCtx: unknown): number {
    const asked = typeof numCtx === 'number' && numCtx > 0 ? numCtx : (m.numCtx ?? this.o.defaultContext ?? 4096);
    return Math.min(asked, m.contextLength);
  }

  protected override ownApi(): boolean {
    return true;
  }

  protected override async route(path: string, method: string, body: Record<string, unknown>, res: http.ServerResponse): Promise<boolean> {
    const notFound = (name: unknown) => this.json(res, 404, { error: `model '${String(name)}' not found` });
    switch (`${method} ${path}`) {
      case 'GET /api/version':
        this.json(res, 200, { version: '0.12.6' });
        return true;
      case 'GET /api/tags':
        this.json(res, 200, { models: this.o.models.map((m) => ({ name: full(m.name), model: full(m.name), modified_at: '2026-10-01T10:00:00Z', size: 1000, digest: 'sha256:0', details: { format: 'gguf', family: 'fake', families: ['fake'], parameter_size: m.kind === 'chat' ? '8.0B' : '137M', quantization_level: 'Q4_K_M' } })) });
        return true;
      case 'GET /api/ps':
        this.json(res, 200, { models: [...this.running].map(([name, context_length]) => ({ name, model: name, size: 1000, digest: 'sha256:0', details: {}, expires_at: '2026-10-01T10:05:00Z', size_vram: 1000, context_length })) });
        return true;
      case 'POST /api/show': {
        const m = this.model(body.model);
        if (!m) {
          notFound(body.model);
          return true;
        }
        const arch = m.kind === 'chat' ? 'qwen3' : 'nomic-bert';
        this.json(res, 200, {
          parameters: [m.numCtx ? `num_ctx                        ${m.numCtx}` : null, 'temperature                    0.6'].filter(Boolean).join('\n'),
          license: 'fake',
          modified_at: '2026-10-01T10:00:00Z',
          template: '{{ .Prompt }}',
          details: { parent_model: '', format: 'gguf', family: arch, families: [arch], parameter_size: m.kind === 'chat' ? '8.0B' : '137M', quantization_level: 'Q4_K_M' },
          capabilities: m.kind === 'chat' ? ['completion', ...(m.thinking ? ['thinking'] : [])] : ['embedding'],
          model_info: { 'general.architecture': arch, [`${arch}.context_length`]: m.contextLength, ...(m.embeddingLength ? { [`${arch}.embedding_length`]: m.embeddingLength } : { [`${arch}.embedding_length`]: 4096 }), [`${arch}.block_count`]: 36 },
        });
        return true;
      }
      case 'POST /api/chat':
        await this.nativeChat(body, res);
        return true;
      case 'GET /v1/models':
        this.json(res, 200, { object: 'list', data: this.o.models.map((m) => ({ id: full(m.name), object: 'model', created: 0, owned_by: 'library' })) });
        return true;
      case 'POST /v1/chat/completions': {
        const m = this.model(body.model);
        if (!m) {
          this.json(res, 404, { error: { message: `model "${String(body.model)}" not found, try pulling it first`, type: 'api_error' } });
          return true;
        }
        // The OpenAI-compatible endpoint takes no window: the model runs with its default one.
        const window = this.windowFor(m, undefined);
        await this.load(m, window);
        const s = this.served1('/v1/chat/completions', m, window, body.messages as Message[]);
        this.chat(res, { ...body, messages: s }, 'complete');
        return true;
      }
      default:
        return false;
    }
  }

  /** Records one prompt served in a window; returns the messages the model reads. */
  private served1(path: string, m: FakeOllamaModel, window: number, messages: Message[]): Message[] {
    const s = serve(messages, window, this.o.tokenRatio ?? 1.1);
    this.served.push({ path, model: full(m.name), window, sent_tokens: s.sent_tokens, read_tokens: s.read_tokens, cut: s.cut });
    return s.messages;
  }

  private async nativeChat(body: Record<string, unknown>, res: http.ServerResponse): Promise<void> {
    const m = this.model(body.model);
    if (!m || m.kind !== 'chat') return this.json(res, m ? 400 : 404, { error: m ? `"${String(body.model)}" does not support chat` : `model "${String(body.model)}" not found, try pulling it first` });
    if (body.think === true && !m.thinking) return this.json(res, 400, { error: `"${String(body.model)}" does not support thinking` });
    const options = (body.options ?? {}) as { num_ctx?: unknown; num_predict?: unknown };
    const window = this.windowFor(m, options.num_ctx);
    await this.load(m, window);
    const messages = (body.messages ?? []) as Message[];
    const base = { model: full(m.name), created_at: '2026-10-01T10:00:00Z' };
    if (messages.length === 0) return this.json(res, 200, { ...base, message: { role: 'assistant', content: '' }, done_reason: 'load', done: true });
    const read = this.served1('/api/chat', m, window, messages);
    const reply = this.nextReply(res, { ...body, messages: read });
    if (!reply) return;
    let content = reply.content;
    const limit = typeof options.num_predict === 'number' ? options.num_predict : Infinity;
    let reason = 'stop';
    if (Math.ceil(content.length / 4) > limit) {
      content = content.slice(0, limit * 4);
      reason = 'length';
    }
    const last = this.served.at(-1)!;
    const done = { ...base, message: { role: 'assistant', content: '' }, done: true, done_reason: reason, total_duration: 1000, load_duration: 10, prompt_eval_count: last.read_tokens, prompt_eval_duration: 100, eval_count: Math.ceil(content.length / 4), eval_duration: 500 };
    if (body.stream === false) return this.json(res, 200, { ...done, message: { role: 'assistant', content, ...(reply.reasoning ? { thinking: reply.reasoning } : {}) } });
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const send = (v: unknown) => res.write(`${JSON.stringify(v)}\n`);
    for (const t of reply.reasoning.match(/[\s\S]{1,12}/g) ?? []) send({ ...base, message: { role: 'assistant', content: '', thinking: t }, done: false });
    for (const p of content.match(/[\s\S]{1,12}/g) ?? []) send({ ...base, message: { role: 'assistant', content: p }, done: false });
    res.end(`${JSON.stringify(done)}\n`);
  }
}
