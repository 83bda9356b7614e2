import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type Id = string | number;
const requestId = (m: JSONRPCMessage): Id | null => ('method' in m && 'id' in m ? m.id : null);
const responseId = (m: JSONRPCMessage): Id | null => (!('method' in m) && 'id' in m && m.id !== undefined ? (m.id as Id) : null);

/**
 * Serves one MCP session over a pair of streams until the client closes its end. A client may send its
 * last requests and close stdin at once (a script piping a few lines does): every request read is
 * answered before the server closes, so closing never drops an answer.
 */
export async function serveStdio(server: Server, input: Readable, output: Writable): Promise<void> {
  const transport = new StdioServerTransport(input, output);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(transport);
  const open = new Set<Id>();
  let ended = false;
  const closeWhenAnswered = () => {
    if (ended && open.size === 0) void server.close();
  };
  // Wrapped after connect, where the protocol has set its own handler.
  const receive = transport.onmessage!;
  transport.onmessage = (m: JSONRPCMessage) => {
    const id = requestId(m);
    if (id !== null) open.add(id);
    receive(m);
  };
  const send = transport.send.bind(transport);
  transport.send = async (m: JSONRPCMessage) => {
    try {
      await send(m);
    } finally {
      const id = responseId(m);
      if (id !== null && open.delete(id)) closeWhenAnswered();
    }
  };
  const end = () => {
    ended = true;
    closeWhenAnswered();
  };
  input.once('end', end);
  input.once('close', end);
  try {
    await closed;
  } finally {
    input.off('end', end);
    input.off('close', end);
    input.pause();
  }
}
