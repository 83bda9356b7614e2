/**
 * A fake LM Studio on 127.0.0.1: `GET /api/v0/models` as LM Studio's REST API documents it (type llm /
 * vlm / embeddings, state loaded / not-loaded, max_context_length, loaded_context_length for a loaded
 * model), `GET /v1/models`, and the OpenAI-compatible chat (streaming) and embeddings through the shared
 * fake (FakeOpenAIServer). A model that is not loaded is loaded at its first request ("just in time")
 * with `loadContext` tokens, which no request can change; a prompt longer than that is refused with LM
 * Studio's words (it does not cut silently). Every prompt served is recorded with its window.
 */
import type http from 'node:http';
import { FakeOpenAIServer, type FakeServerOptions } from './openai-server';
import type { ServedPrompt } from './ollama-server';
import { type Message, serve } from './served-window';

export interface FakeLmStudioModel {
  id: string;
  type: 'llm' | 'vlm' | 'embeddings';
  max_context_length: number;
  /** Loaded with this window from the start; absent: not loaded. */
  loaded?: number;
}

export interface FakeLmStudioOptions extends FakeServerOptions {
  models: FakeLmStudioModel[];
  /** The window a just-in-time load gives a model (LM Studio's default load setting). */
  loadContext?: number;
  tokenRatio?: number;
  loadDelayMs?: number;
  /** Leave `loaded_context_length` out, as LM Studio before 0.3.x did. */
  oldVersion?: boolean;
}

export class FakeLmStudioServer extends FakeOpenAIServer {
  readonly loaded = new Map<string, number>();
  readonly served: ServedPrompt[] = [];
  readonly loads: string[] = [];

  constructor(readonly o: FakeLmStudioOptions) {
    super(o);
    for (const m of o.models) if (m.loaded) this.loaded.set(m.id, m.loaded);
  }

  /** Prompts refused or cut for their window. */
  get overflows(): ServedPrompt[] {
    return this.served.filter((s) => s.cut);
  }

  protected override ownApi(): boolean {
    return true;
  }

  protected override async route(path: string, method: string, body: Record<string, unknown>, res: http.ServerResponse): Promise<boolean> {
    if (method === 'GET' && path === '/api/v0/models') {
      this.json(res, 200, {
        object: 'list',
        data: this.o.models.map((m) => {
          const window = this.loaded.get(m.id);
          return { id: m.id, object: 'model', type: m.type, publisher: 'lmstudio-community', arch: m.type === 'embeddings' ? 'nomic-bert' : 'qwen3', compatibility_type: 'gguf', quantization: 'Q4_K_M', state: window ? 'loaded' : 'not-loaded', max_context_length: m.max_context_length, ...(window && !this.o.oldVersion ? { loaded_context_length: window } : {}) };
        }),
      });
      return true;
    }
    if (method === 'GET' && path === '/v1/models') {
      this.json(res, 200, { object: 'list', data: this.o.models.map((m) => ({ id: m.id, object: 'model', owned_by: 'organization_owner' })) });
      return true;
    }
    if (method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/embeddings')) {
      const m = this.o.models.find((x) => x.id === body.model);
      if (!m) {
        this.json(res, 404, { error: { message: `Model "${String(body.model)}" not found. Please specify a valid model.`, type: 'invalid_request_error' } });
        return true;
      }
      if (!this.loaded.has(m.id)) {
        if (this.o.loadDelayMs) await new Promise((r) => setTimeout(r, this.o.loadDelayMs));
        this.loads.push(m.id);
        this.loaded.set(m.id, Math.min(this.o.loadContext ?? 4096, m.max_context_length));
      }
      if (path === '/v1/embeddings') return false;
      const window = this.loaded.get(m.id)!;
      const s = serve(body.messages as Message[], window, this.o.tokenRatio ?? 1.1);
      this.served.push({ path, model: m.id, window, sent_tokens: s.sent_tokens, read_tokens: s.read_tokens, cut: s.cut });
      if (s.cut) {
        this.json(res, 400, { error: `Trying to keep the first ${s.sent_tokens} tokens when context the overflows. However, the model is loaded with context length of only ${window} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input` });
        return true;
      }
      return false;
    }
    return false;
  }
}
