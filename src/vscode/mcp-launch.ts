import path from 'node:path';
import { envNameOf, vscodeKeyOf } from '../app/settings-table/names';

/** How an MCP client starts DocQA's server: a command, its arguments and environment (no key is ever in it). */
export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The embedding settings the server needs to embed a search query as the extension would (none of them secret). */
const EMBEDDING_SETTINGS = ['embedding.provider', 'embedding.base_url', 'embedding.model', 'embedding.dimensions'] as const;

/**
 * The launch of `docqa mcp` over the extension's data directory: the Node the extension host runs on
 * (VS Code's own binary, which runs as plain Node with ELECTRON_RUN_AS_NODE; a plain Node ignores it)
 * and the CLI bundled with the extension, `--store` its global storage. The embedding endpoint and model
 * come from the user's settings so that search_blocks can embed its query where no key is needed (a
 * local server); the key stays in VS Code's secret storage, and without one the server searches by
 * keywords and says so.
 */
export function mcpLaunch(o: { node: string; extensionPath: string; dataDir: string; setting: (key: string) => unknown }): McpLaunch {
  const env: Record<string, string> = { ELECTRON_RUN_AS_NODE: '1' };
  for (const p of EMBEDDING_SETTINGS) {
    const v = o.setting(vscodeKeyOf(p));
    if (typeof v === 'string' ? v.trim() !== '' : typeof v === 'number') env[envNameOf(p)] = String(v).trim();
  }
  return { command: o.node, args: [path.join(o.extensionPath, 'dist', 'cli.js'), '--store', o.dataDir, 'mcp'], env };
}

/**
 * The configuration Claude Desktop (claude_desktop_config.json), Cursor (.cursor/mcp.json) and most
 * other clients take: an `mcpServers` entry named `docqa`.
 */
export function clientConfigJson(l: McpLaunch): string {
  return `${JSON.stringify({ mcpServers: { docqa: { command: l.command, args: l.args, env: l.env } } }, null, 2)}\n`;
}
