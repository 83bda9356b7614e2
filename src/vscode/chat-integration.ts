import type * as vscode from 'vscode';
import type { DocQaApp } from '../app/docqa-app';
import { PARTICIPANT_ID, participantHandler } from './chat-participant';
import type { HostRegistry } from './lazy-registry';
import type { VsCodeModels } from './lm-models';
import { languageModelTools } from './lm-tool-text';
import { lmTool } from './lm-tools';

/** DocQA inside VS Code's own chat: @docqa, the five tools for agent mode and `#`, and the language-model picker. */
export function registerChatIntegration(registry: HostRegistry, app: DocQaApp, models: VsCodeModels): vscode.Disposable[] {
  return [
    registry.chatParticipant(PARTICIPANT_ID, participantHandler(app, models)),
    ...languageModelTools().map((t) => registry.languageModelTool(t.name as string, lmTool(app, t.name as string))),
    registry.command('docqa.pickLanguageModel', () => models.pick()),
  ];
}
