import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { ToolReader } from '../app/tool-reader';
import { createMcpServer } from '../mcp/mcp-server';
import { serveStdio } from '../mcp/stdio-session';
import { keysFromEnv, resolveStore, settingsFromEnv } from './cli-env';
import type { CommandContext } from './command-context';

/**
 * `docqa mcp`: DocQA's MCP server on stdin/stdout until the client closes stdin. stdout carries only
 * the protocol (through the CLI's redactor, like everything it prints); nothing else is printed there.
 */
export function registerMcpCommand(program: Command, { io }: CommandContext): void {
  program
    .command('mcp')
    .description('serve the five retrieval tools (read-only) and a citation-rules prompt over MCP on stdin/stdout, for Claude Desktop, Cursor, VS Code or any MCP client')
    .addHelpText(
      'after',
      '\nThe data directory is --store (given before or after `mcp`), else $DOCQA_HOME, else ~/.docqa. Each call reads the snapshot active when it starts. search_blocks embeds its query only when DOCQA_EMBEDDING_* (and its key, unless local) names the snapshot\'s embedding model; otherwise it searches by keywords and says so. See docs/cli.md for client configurations.\n',
    )
    .action(async () => {
      const store = resolveStore(program.opts<{ store?: string }>().store, io.env);
      const reader = new ToolReader({ dataDir: store.root, settings: settingsFromEnv(io.env, ['embedding-if-set']), keys: keysFromEnv(io.env) });
      const server = createMcpServer({ reader, version: program.version() ?? '0.0.0' });
      const out = new Writable({
        write(chunk: Buffer | string, _enc, done) {
          io.stdout(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
          done();
        },
      });
      await serveStdio(server, process.stdin, out);
    });
}
