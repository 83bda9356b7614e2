import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI } from './cli';

/** An MCP client of `docqa mcp` over stdio: the SDK's own client, the built CLI as its server process. */
export interface McpSession {
  client: Client;
  /** What the server wrote on stderr (nothing is expected there). */
  stderr: () => string;
  close(): Promise<void>;
}

export async function connectMcp(store: string, env: Record<string, string> = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--store', store, 'mcp'], env: { PATH: process.env.PATH ?? '', HOME: store, ...env }, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const client = new Client({ name: 'docqa-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** A call's payload: the structured content, or the JSON text of an error result. */
export function payloadOf(r: CallToolResult): Record<string, unknown> {
  if (r.isError) return JSON.parse((r.content[1] as { text: string }).text) as Record<string, unknown>;
  return (r.structuredContent ?? JSON.parse((r.content[0] as { text: string }).text)) as Record<string, unknown>;
}

export async function call(s: McpSession, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await s.client.callTool({ name, arguments: args })) as CallToolResult;
}
