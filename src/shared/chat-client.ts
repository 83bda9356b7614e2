import { CHAT_REQUESTS, ChatEvent, ChatHostToWebview, type ChatMethod, type ChatParams, type ChatResult, type ChatWebviewToHost } from './chat-protocol';

/**
 * The webview's end of the chat protocol: numbered requests with a timeout each, cancellation through an
 * AbortSignal, pending replies rejected on dispose, and every inbound message validated — an invalid one
 * is dropped and reported to the host as a `log` message (the webview has no console anyone reads).
 * Transport-neutral (a post function in, raw messages out), so it runs in Node tests as in the webview.
 */
export class ChatRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

interface Pending {
  method: ChatMethod;
  resolve: (v: never) => void;
  reject: (e: ChatRequestError) => void;
  done: () => void;
}

export interface ChatClientOptions {
  post: (m: ChatWebviewToHost) => void;
  onEvent: (e: ChatEvent) => void;
  /** Scales every method's timeout (tests shorten them). */
  timeoutScale?: number;
}

export class ChatClient {
  private next = 1;
  private readonly pending = new Map<string, Pending>();
  private disposed = false;

  constructor(private readonly o: ChatClientOptions) {}

  /** Says `ready`: the host starts posting (init first) only after this. */
  ready(): void {
    this.o.post({ type: 'ready' });
  }

  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void {
    if (!this.disposed) this.o.post({ type: 'log', level, message: message.slice(0, 2000) });
  }

  request<M extends ChatMethod>(method: M, params: ChatParams<M>, signal?: AbortSignal): Promise<ChatResult<M>> {
    if (this.disposed) return Promise.reject(new ChatRequestError('disposed', 'the chat view was closed'));
    if (signal?.aborted) return Promise.reject(new ChatRequestError('cancelled', `${method} was cancelled`));
    const id = `r${this.next++}`;
    return new Promise<ChatResult<M>>((resolve, reject) => {
      const ms = CHAT_REQUESTS[method].timeout_s * 1000 * (this.o.timeoutScale ?? 1);
      const timer = setTimeout(() => this.abandon(id, new ChatRequestError('timeout', `no reply to ${method} within ${CHAT_REQUESTS[method].timeout_s} s`)), ms);
      const onAbort = () => this.abandon(id, new ChatRequestError('cancelled', `${method} was cancelled`));
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      this.pending.set(id, { method, resolve: resolve as (v: never) => void, reject, done });
      // The params are the caller's typed values; the host validates them again on arrival.
      this.o.post({ type: 'request', id, method, params } as ChatWebviewToHost);
    });
  }

  /** A raw inbound message (the `data` of a MessageEvent). */
  receive(raw: unknown): void {
    if (this.disposed) return;
    const parsed = ChatHostToWebview.safeParse(raw);
    if (!parsed.success) {
      this.log('warn', `dropped an invalid message from the host: ${describe(raw)} (${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')})`);
      return;
    }
    const m = parsed.data;
    if (m.type !== 'reply') {
      this.o.onEvent(m);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) {
      // A reply after a timeout or a cancel: the caller has already been told.
      this.log('debug', `reply to unknown or abandoned request ${m.id}`);
      return;
    }
    p.done();
    if (!m.ok) return p.reject(new ChatRequestError(m.error.code, m.error.message));
    const value = CHAT_REQUESTS[p.method].result.safeParse(m.value);
    if (!value.success) {
      this.log('warn', `invalid reply to ${p.method} ${m.id}: ${value.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
      return p.reject(new ChatRequestError('invalid_reply', `the host's reply to ${p.method} did not match the protocol`));
    }
    p.resolve(value.data as never);
  }

  /** Requests still waiting for a reply. */
  get pendingCount(): number {
    return this.pending.size;
  }

  dispose(): void {
    if (this.disposed) return;
    for (const [id, p] of [...this.pending]) this.abandon(id, new ChatRequestError('disposed', `the chat view was closed before ${p.method} was answered`));
    this.disposed = true;
  }

  private abandon(id: string, err: ChatRequestError): void {
    const p = this.pending.get(id);
    if (!p) return;
    p.done();
    this.o.post({ type: 'cancel', id });
    p.reject(err);
  }
}

function describe(raw: unknown): string {
  if (raw && typeof raw === 'object' && 'type' in raw) {
    const t = (raw as { type: unknown }).type;
    // String() of an object without a usable toString throws ({"type": {"toString": null}}).
    return `type ${t !== null && typeof t === 'object' ? '(an object)' : JSON.stringify(String(t)).slice(0, 60)}`;
  }
  return typeof raw;
}
