import net from 'node:net';

/** Connection errors that say no collector is there at all: a retry a second later finds none either. */
const NOBODY_THERE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * Why nothing can be listening at the URL's host and port (the error's code, e.g. ECONNREFUSED), or null
 * when a connection opened, timed out or failed otherwise (the exporter then tries, and says what
 * happened). OpenTelemetry's exporter retries a refused connection with back-off for about 8 s before it
 * reports it: a person who pressed Export at a wrong port waited that long to learn so.
 */
export async function nobodyListening(url: URL, timeoutMs: number): Promise<string | null> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (why: string | null) => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(timeoutMs, () => done(null));
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code && NOBODY_THERE.has(err.code) ? err.code : null));
  });
}
