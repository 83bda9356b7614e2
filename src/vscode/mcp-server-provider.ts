import * as vscode from 'vscode';
import type { HostRegistry } from './lazy-registry';

/** The id under package.json's contributes.mcpServerDefinitionProviders. */
export const MCP_PROVIDER_ID = 'docqa.mcpServer';

async function launch(context: vscode.ExtensionContext) {
  // Loaded on first use: the settings table is not needed to activate.
  const { mcpLaunch } = await import('./mcp-launch');
  const config = vscode.workspace.getConfiguration();
  return mcpLaunch({ node: process.execPath, extensionPath: context.extensionPath, dataDir: context.globalStorageUri.fsPath, setting: (key) => config.get(key) });
}

/**
 * DocQA's MCP server for VS Code's agent, with no configuration: `docqa mcp` over the extension's data
 * directory, run by the extension host's own Node with the CLI shipped in the extension. And the command
 * that copies the same launch as a ready configuration for Claude Desktop, Cursor and other clients.
 */
export function registerMcpServer(context: vscode.ExtensionContext, registry: HostRegistry, version: string): vscode.Disposable[] {
  const changed = new vscode.EventEmitter<void>();
  return [
    registry.command('docqa.copyMcpServerConfig', async () => {
      const { clientConfigJson } = await import('./mcp-launch');
      await vscode.env.clipboard.writeText(clientConfigJson(await launch(context)));
      void vscode.window.showInformationMessage(
        vscode.l10n.t('DocQA: the MCP server configuration is on the clipboard. Paste it into Claude Desktop’s claude_desktop_config.json or Cursor’s .cursor/mcp.json. It reads {0}; for semantic search add DOCQA_EMBEDDING_API_KEY to its env (without it, search is keyword-only).', context.globalStorageUri.fsPath),
      );
    }),
    changed,
    // The embedding endpoint is part of the launch: a change gives VS Code a new definition.
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('docqa.embedding')) changed.fire();
    }),
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: async () => {
        const l = await launch(context);
        return [new vscode.McpStdioServerDefinition('DocQA', l.command, l.args, l.env, version)];
      },
    }),
  ];
}
