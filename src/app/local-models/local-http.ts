import { AbortScope } from '../../common/abort-scope';

/** The answer to one probe: its status and its body parsed as JSON (null when it was not JSON). */
export interface ProbeAnswer {
  status: number;
  json: unknown;
}

/**
 * One small request to a local model server (a model list, a model's details): its own deadline, the
 * caller's cancellation, no key (Ollama and LM Studio need none on this machine; a key is only ever
 * sent to the endpoint the person configured, through the model clients). Network failures throw.
 */
export async function probe(url: string, o: { method?: 'GET' | 'POST'; body?: unknown; timeoutMs: number; signal?: AbortSignal }): Promise<ProbeAnswer> {
  const scope = new AbortScope(o.signal);
  const deadline = setTimeout(() => scope.abort(new Error(`no answer from ${url} within ${o.timeoutMs} ms`)), o.timeoutMs);
  try {
    const res = await fetch(url, {
      method: o.method ?? 'GET',
      headers: o.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: scope.signal,
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: a server that is not the one probed for
    }
    return { status: res.status, json };
  } catch (err) {
    if (o.signal?.aborted) throw o.signal.reason;
    throw err;
  } finally {
    clearTimeout(deadline);
    scope.dispose();
  }
}

/**
 * Whether DocQA may look for a local model server behind a base URL: this machine or a private network
 * (a server in the same house or lab). A public host is never probed: its requests go only where the
 * person configured them, to the paths of the OpenAI API.
 */
export function mayProbe(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host === '::1' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.lan') || host.endsWith('.internal')) return true;
  const v4 = host.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (host.includes(':')) return /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
  // A single-label name (`ollama`, a container's or a machine's name on the local network).
  return !host.includes('.');
}

/** The server's root for its own API: the base URL without the OpenAI-compatible `/v1`. */
export function serverRoot(baseUrl: string): string {
  const u = new URL(baseUrl);
  const p = u.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${u.origin}${p}`;
}
