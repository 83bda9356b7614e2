import * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import { invocationWords, invokeToolText } from './lm-tool-text';

/**
 * One of DocQA's tools as a vscode.LanguageModelTool: read-only, so it asks no confirmation; each
 * invocation reads the active snapshot, pinned for the call; its result is text the agent can cite from.
 */
export function lmTool(app: DocQaApp, name: string): vscode.LanguageModelTool<Record<string, unknown>> {
  return {
    prepareInvocation: () => ({ invocationMessage: invocationWords(name, vscode.env.language.toLowerCase().startsWith('zh') ? 'zh' : 'en') }),
    invoke: async (options, token) => {
      if (token.isCancellationRequested) throw new vscode.CancellationError();
      const text = await invokeToolText(app, name, options.input, options.tokenizationOptions?.tokenBudget);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
    },
  };
}
