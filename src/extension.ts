import * as vscode from 'vscode';
import pkg from '../package.json';
import { LazyRegistry, type ManifestParts } from './vscode/lazy-registry';
import { registerMcpServer } from './vscode/mcp-server-provider';

/**
 * The activation shell: it registers a stand-in for every command, view and editor the manifest
 * contributes and nothing else, so activation loads almost no code (the extension host is shared with
 * every other extension). The core (src/vscode/core.ts and the application layer) loads on the first
 * use of any of them; esbuild keeps a dynamically imported module's code from running until then.
 */
export function activate(context: vscode.ExtensionContext): void {
  const registry = new LazyRegistry(async (r) => {
    const { startCore } = await import('./vscode/core');
    context.subscriptions.push(startCore(context, r, pkg.version));
  });
  context.subscriptions.push(...registry.install(pkg.contributes as unknown as ManifestParts));
  context.subscriptions.push(...registerMcpServer(context, registry, pkg.version));
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
