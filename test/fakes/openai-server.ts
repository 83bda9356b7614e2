/**
 * A local OpenAI-compatible server for tests: `/v1/embeddings` and `/v1/chat/completions` (streaming and
 * not) over real HTTP on 127.0.0.1 and a random port, recording every request and injecting faults on
 * demand. It speaks the wire format the `openai` SDK and DeepSeek use; nothing about it is mocked in the
 * client under test.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fakeEmbedding, fillPlaceholders, autoReply } from './scripted-replies';

export type Fault =
  /** 429; `Retry-After` in seconds, or as an HTTP-date this many seconds from now (negative: past), or absent. */
  | { kind: 'rate_limit'; retryAfterSeconds?: number; retryAfterDateIn?: number }
  | { kind: 'server_error'; status?: 500 | 502 | 503 | 504 }
  /** The connection is destroyed before any answer (the client sees a reset / "other side closed"). */
  | { kind: 'reset' }
  | { kind: 'hang' }
  /** Chat: an event stream with an unparsable `data:` line; embeddings: a 200 whose JSON body is cut. */
  | { kind: 'malformed_json' }
  /** The answer stops half-way: the stream ends without a finish reason (`abrupt`: the connection dies instead); embeddings: the body stops and the connection dies. */
  | { kind: 'truncated_stream'; abrupt?: boolean }
  | { kind: 'stalled_stream' }
  /** 400 as OpenAI (`code: context_length_exceeded`) or DeepSeek (generic code, the words only) send it. */
  | { kind: 'context_length'; dialect?: 'openai' | 'deepseek' }
  /** Chat: a normal finish with no text at all; embeddings: `data: []`. */
  | { kind: 'empty_completion' }
  /** HTTP 200 carrying an error object: as the JSON body, or (chat) as a `data:` event inside the stream. */
  | { kind: 'error_body'; as?: 'json' | 'sse'; status?: number }
  | { kind: 'unauthorized' }
  /** Any other HTTP error status with an OpenAI-style error body. */
  | { kind: 'status'; status: number; message?: string }
  /** 404 for an unknown model, in the words OpenAI-compatible servers use. */
  | { kind: 'model_not_found' };

/** How a completion ends: normally, without a finish reason, with the connection dying, or never. */
export type Mode = 'complete' | 'truncate' | 'cut' | 'stall';

export interface RecordedRequest {
  path: string;
  method: string;
  body: Record<string, unknown>;
  /** Whether an Authorization header came (its value is never kept). */
  authorized: boolean;
}

/**
 * A scripted reply: its text, optionally with DeepSeek-style `reasoning_content` streamed before it, and
 * the size of the content's stream pieces (12 characters unless set: 1 or 3 split every tag and label).
 */
export type ChatReply = string | { content: string; reasoning?: string; chunk?: number };
export type ChatScript = ChatReply | ((body: Record<string, unknown>) => ChatReply);

export interface FakeServerOptions {
  /** Default embedding size when the request gives no `dimensions`. */
  dimensions?: number;
  /** How a text becomes a vector (default fakeEmbedding); the scale bench uses a faster hash of the same features. */
  embed?: (text: string, dims: number) => ArrayLike<number>;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Send `usage` with embeddings (default true; some servers send none). */
  embeddingUsage?: boolean;
  /** When the chat script is empty, answer as a tiny deterministic agent (see autoReply) instead of failing. */
  auto?: boolean;
}

export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  /**
   * Requests to a local server's own API (`/api/…`) that this plain OpenAI-compatible server does not
   * have: DocQA's look for Ollama or LM Studio. Kept apart, so `requests` holds what reached the model API.
   */
  readonly probes: RecordedRequest[] = [];
  /** Errors thrown by scripted reply functions (tests assert this stays empty). */
  readonly scriptErrors: unknown[] = [];
  private readonly faults = new Map<string, Fault[]>();
  private readonly chatScript: ChatScript[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();
  private server: http.Server | null = null;
  private port = 0;
  /** Whether embedding answers carry `usage` (some servers send none); may be switched between requests. */
  embeddingUsage: boolean;

  constructor(private readonly options: FakeServerOptions = {}) {
    this.embeddingUsage = options.embeddingUsage ?? true;
  }

  get baseURL(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** The server's root, where a local server's own API lives (`/api/…`). */
  get root(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Texts embedded so far, in request order. */
  get embeddedInputs(): string[] {
    return this.requests.filter((r) => r.path === '/v1/embeddings').flatMap((r) => r.body.input as string[]);
  }

  /** The next `times` requests to `path` ('/v1/embeddings' or '/v1/chat/completions') get this fault. */
  inject(path: string, fault: Fault, times = 1): void {
    const list = this.faults.get(path) ?? [];
    for (let i = 0; i < times; i++) list.push(fault);
    this.faults.set(path, list);
  }

  /** Replies for the next chat completions, in order. */
  scriptChat(...replies: ChatScript[]): void {
    this.chatScript.push(...replies);
  }

  /** Drops the replies and faults not used yet: a test that failed half-way leaves nothing for the next one. */
  resetScript(): void {
    this.chatScript.length = 0;
    this.faults.clear();
  }

  /** Whether the tiny automatic agent answers once the script is used up. */
  get auto(): boolean {
    return this.options.auto === true;
  }

  /** Listens on 127.0.0.1 (a free port unless one is given). */
  async start(port = 0): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', resolve);
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    } catch {
      return this.json(res, 400, { error: { message: 'request body is not JSON', type: 'invalid_request_error' } });
    }
    const path = (req.url ?? '').split('?')[0]!;
    const auth = req.headers.authorization;
    (this.ownApi(path) ? this.requests : this.probes).push({ path, method: req.method ?? 'GET', body, authorized: typeof auth === 'string' && auth.length > 0 });
    if (this.options.apiKey !== undefined && auth !== `Bearer ${this.options.apiKey}`) {
      // Like several real servers, the error echoes the key it was given: redaction must catch it.
      return this.json(res, 401, { error: { message: `Authentication Fails: incorrect API key provided: ${(auth ?? '').replace(/^Bearer /, '')}`, type: 'authentication_error' } });
    }
    const fault = this.faults.get(path)?.shift();
    if (fault && this.fault(fault, path, body, auth, req, res)) return;
    if (await this.route(path, req.method ?? 'GET', body, res)) return;
    if (path === '/v1/embeddings') return this.embeddings(res, body);
    if (path === '/v1/chat/completions') return this.chat(res, body, 'complete');
    return this.json(res, 404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
  }

  /** Whether a path belongs to this server's API (recorded in `requests`): the OpenAI API's, plus a local server's own in a subclass. */
  protected ownApi(path: string): boolean {
    return !path.startsWith('/api/');
  }

  /**
   * A subclass's own routes (a local server's native API, or its way of serving /v1): true when it
   * answered. Runs after the request is recorded, the key checked and a fault injected.
   */
  protected route(_path: string, _method: string, _body: Record<string, unknown>, _res: http.ServerResponse): boolean | Promise<boolean> {
    return false;
  }

  /** Answers with the fault; false when the fault does not apply to this path (the request is then served). */
  private fault(fault: Fault, path: string, body: Record<string, unknown>, auth: string | undefined, req: http.IncomingMessage, res: http.ServerResponse): boolean {
    const chat = path === '/v1/chat/completions';
    switch (fault.kind) {
      case 'rate_limit':
        if (fault.retryAfterSeconds !== undefined) res.setHeader('retry-after', String(fault.retryAfterSeconds));
        if (fault.retryAfterDateIn !== undefined) res.setHeader('retry-after', new Date(Date.now() + fault.retryAfterDateIn * 1000).toUTCString());
        this.json(res, 429, { error: { message: 'Rate limit reached', type: 'rate_limit_error' } });
        return true;
      case 'server_error': {
        const status = fault.status ?? 500;
        const words: Record<number, string> = { 500: 'internal error', 502: 'bad gateway', 503: 'service unavailable: the server is overloaded', 504: 'gateway timeout' };
        this.json(res, status, { error: { message: words[status], type: 'server_error' } });
        return true;
      }
      case 'reset':
        req.socket.destroy();
        return true;
      case 'unauthorized':
        this.json(res, 401, { error: { message: `Authentication Fails: incorrect API key provided: ${(auth ?? '').replace(/^Bearer /, '')}`, type: 'authentication_error' } });
        return true;
      case 'status':
        this.json(res, fault.status, { error: { message: fault.message ?? `request refused (HTTP ${fault.status})`, type: 'invalid_request_error' } });
        return true;
      case 'model_not_found':
        this.json(res, 404, { error: { message: `The model \`${String(body.model)}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', code: 'model_not_found' } });
        return true;
      case 'hang':
        return true; // never answers; the client's deadline must end it
      case 'malformed_json':
        if (chat && body.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(`data: ${JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`);
          res.end('data: {"id": "chatcmpl-x", "choices": [{"delta": {"content": "Hel\n\ndata: [DONE]\n\n');
          return true;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"object": "list", "data": [');
        return true;
      case 'truncated_stream':
        if (chat) {
          this.chat(res, body, fault.abrupt ? 'cut' : 'truncate');
          return true;
        }
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
        res.write('{"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 0.2,');
        setTimeout(() => req.socket.destroy(), 20);
        return true;
      case 'stalled_stream':
        if (!chat) return false;
        this.chat(res, body, 'stall');
        return true;
      case 'context_length': {
        const openai = (fault.dialect ?? 'openai') === 'openai';
        const message = chat
          ? openai
            ? "This model's maximum context length is 128000 tokens. However, your messages resulted in 200000 tokens. Please reduce the length of the messages."
            : "This model's maximum context length is 131072 tokens. However, you requested 200000 tokens (200000 in the messages, 0 in the completion). Please reduce the length of the messages or completion."
          : "This model's maximum context length is 8192 tokens, however you requested 9000 tokens (9000 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.";
        this.json(res, 400, { error: { message, type: 'invalid_request_error', param: openai ? 'messages' : null, code: openai ? 'context_length_exceeded' : 'invalid_request_error' } });
        return true;
      }
      case 'empty_completion':
        if (!chat) {
          this.json(res, 200, { object: 'list', data: [], model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
          return true;
        }
        this.reply(res, body, '', '', 'complete');
        return true;
      case 'error_body': {
        const error = { message: 'The upstream provider failed to answer', type: 'server_error', ...(fault.status !== undefined ? { code: fault.status } : {}) };
        if (chat && (fault.as ?? 'json') === 'sse') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(`data: ${JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`);
          res.end(`data: ${JSON.stringify({ error })}\n\n`);
          return true;
        }
        this.json(res, 200, { error });
        return true;
      }
    }
  }

  protected json(res: http.ServerResponse, status: number, value: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  }

  protected embeddings(res: http.ServerResponse, body: Record<string, unknown>): void {
    const input = body.input;
    if (!Array.isArray(input) || input.some((x) => typeof x !== 'string')) {
      return this.json(res, 400, { error: { message: 'input must be an array of strings', type: 'invalid_request_error' } });
    }
    const dims = typeof body.dimensions === 'number' ? body.dimensions : (this.options.dimensions ?? 64);
    const asBase64 = body.encoding_format === 'base64';
    const data = (input as string[]).map((text, index) => {
      const vec = Array.from((this.options.embed ?? fakeEmbedding)(text, dims));
      return { object: 'embedding', index, embedding: asBase64 ? Buffer.from(new Float32Array(vec).buffer).toString('base64') : vec };
    });
    const tokens = (input as string[]).reduce((n, t) => n + Math.max(1, Math.ceil(t.length / 4)), 0);
    this.json(res, 200, { object: 'list', data, model: body.model, ...(!this.embeddingUsage ? {} : { usage: { prompt_tokens: tokens, total_tokens: tokens } }) });
  }

  protected chat(res: http.ServerResponse, body: Record<string, unknown>, mode: Mode): void {
    const reply = this.nextReply(res, body);
    if (reply) this.reply(res, body, reply.content, reply.reasoning, mode, reply.chunk);
  }

  /** The next scripted (or automatic) reply to a request, placeholders filled; null when it answered with an error instead. */
  protected nextReply(res: http.ServerResponse, body: Record<string, unknown>): { content: string; reasoning: string; chunk: number } | null {
    const next = this.chatScript.shift() ?? (this.options.auto ? autoReply : undefined);
    if (next === undefined) {
      this.json(res, 500, { error: { message: 'fake server: no scripted reply left', type: 'server_error' } });
      return null;
    }
    let reply: ChatReply;
    try {
      reply = typeof next === 'function' ? next(body) : next;
    } catch (err) {
      // A failing script (an assertion inside it) is reported to the test, not thrown into the server.
      this.scriptErrors.push(err);
      this.json(res, 500, { error: { message: `fake server: script failed: ${String(err)}`, type: 'server_error' } });
      return null;
    }
    return { content: fillPlaceholders(typeof reply === 'string' ? reply : reply.content, body), reasoning: typeof reply === 'string' ? '' : (reply.reasoning ?? ''), chunk: typeof reply === 'string' ? 12 : (reply.chunk ?? 12) };
  }

  /** Sends one completion (streamed when asked), cut or stalled half-way as the mode says. */
  private reply(res: http.ServerResponse, body: Record<string, unknown>, text: string, reasoning: string, mode: Mode, chunk = 12): void {
    let content = text;
    const messages = (body.messages as Array<{ content?: unknown }> | undefined) ?? [];
    const promptTokens = Math.ceil(JSON.stringify(messages).length / 4);
    // Like a real server, max_tokens cuts the answer (4 characters a token here) and says so.
    const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : Infinity;
    let finishReason = 'stop';
    if (Math.ceil(content.length / 4) > maxTokens) {
      content = content.slice(0, maxTokens * 4);
      finishReason = 'length';
    }
    const completionTokens = Math.ceil(content.length / 4);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_cache_hit_tokens: 0,
      prompt_cache_miss_tokens: promptTokens,
    };
    const id = `chatcmpl-${this.requests.length}`;
    const model = body.model;
    if (!body.stream) {
      return this.json(res, 200, { id, object: 'chat.completion', created: 0, model, choices: [{ index: 0, message: { role: 'assistant', content, ...(reasoning ? { reasoning_content: reasoning } : {}) }, finish_reason: finishReason }], usage });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (v: unknown) => res.write(`data: ${JSON.stringify(v)}\n\n`);
    const pieces = content.match(new RegExp(`[\\s\\S]{1,${chunk}}`, 'g')) ?? [''];
    send({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    res.write(': keep-alive\n\n');
    for (const r of reasoning.match(/[\s\S]{1,12}/g) ?? []) send({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta: { reasoning_content: r }, finish_reason: null }] });
    const upTo = mode === 'complete' ? pieces.length : Math.max(1, Math.floor(pieces.length / 2));
    for (const p of pieces.slice(0, upTo)) send({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta: { content: p }, finish_reason: null }] });
    // Truncated: the connection ends without a finish reason; cut: it dies; stalled: it stays open and silent.
    if (mode === 'truncate') return void res.end();
    if (mode === 'cut') return void setTimeout(() => res.socket?.destroy(), 20);
    if (mode === 'stall') return;
    send({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta: {}, finish_reason: finishReason }] });
    const opts = body.stream_options as { include_usage?: boolean } | undefined;
    if (opts?.include_usage) send({ id, object: 'chat.completion.chunk', created: 0, model, choices: [], usage });
    res.end('data: [DONE]\n\n');
  }
}
