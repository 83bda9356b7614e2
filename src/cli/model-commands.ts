import type { Command } from 'commander';
import { type LocalModel, ollamaName } from '../app/local-models/local-server';
import type { ModelListing } from '../app/local-models/model-list';
import { SERVER_NAMES } from '../common/served-window';
import type { CommandContext } from './command-context';

const n = (x: number) => x.toLocaleString('en-US');

/** One model as a line: the configured one starred, its size, its maximum window, and what is loaded. */
function modelLine(m: LocalModel, configured: string | null, ollama: boolean): string {
  const same = configured !== null && (ollama ? ollamaName(m.id) === ollamaName(configured) : m.id === configured);
  const facts = [
    m.details,
    m.model_max !== null ? `max ${n(m.model_max)} tokens` : null,
    m.embedding_length !== null && m.kind === 'embedding' ? `${n(m.embedding_length)} dimensions` : null,
    m.loaded ? `loaded${m.running_context !== null ? ` (${n(m.running_context)}-token window)` : ''}` : null,
  ].filter(Boolean);
  return `${same ? '*' : ' '} ${m.id}${facts.length ? `  ${facts.join(', ')}` : ''}`;
}

function header(l: ModelListing): string {
  return l.server ? `${SERVER_NAMES[l.server]}${l.version ? ` ${l.version}` : ''} at ${l.endpoint}` : `${l.endpoint} (an OpenAI-compatible service: it does not say which models are for chat and which for embeddings)`;
}

export function registerModelCommands(program: Command, { io, json, app }: CommandContext): void {
  program
    .command('models')
    .description('list the models the chat and embedding endpoints offer (chat and embedding models apart; * marks the configured ones)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const a = app(['chat', 'embedding-if-set']);
      const chat = await a.listModels('chat');
      const e = a.settings.embedding;
      const embedding = e.provider !== 'none' && e.base_url !== a.settings.chat.base_url ? await a.listModels('embedding') : chat;
      if (o.json) return json({ chat: { configured: a.settings.chat.model, ...chat }, embedding: { configured: e.provider === 'none' ? null : e.model, ...embedding } });
      const chatModel = a.settings.chat.model;
      const embeddingModel = e.provider === 'none' ? null : e.model;
      io.stdout(`${header(chat)}\n`);
      io.stdout('chat models (DOCQA_CHAT_MODEL):\n');
      for (const m of [...chat.chat, ...chat.unknown]) io.stdout(`${modelLine(m, chatModel, chat.server === 'ollama')}\n`);
      if (chat.chat.length + chat.unknown.length === 0) io.stdout('  (none)\n');
      if (embedding !== chat) io.stdout(`${header(embedding)}\n`);
      io.stdout(`embedding models (DOCQA_EMBEDDING_MODEL${embeddingModel ? '' : '; keyword-only now: DOCQA_EMBEDDING_PROVIDER=none'}):\n`);
      for (const m of [...embedding.embedding, ...(embedding.server ? [] : embedding.unknown)]) io.stdout(`${modelLine(m, embeddingModel, embedding.server === 'ollama')}\n`);
      if (embedding.embedding.length === 0 && (embedding.server || embedding.unknown.length === 0)) io.stdout('  (none)\n');
    });
}
