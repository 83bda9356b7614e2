import path from 'node:path';
import type { Command } from 'commander';
import type { Conversation, ConversationTurn } from '../shared/conversation';
import { workspaceKey } from '../app/conversations/workspace-key';
import type { CommandContext } from './command-context';

/** The CLI's workspace: the folder given, else the current directory (a VS Code window with that one folder open shares its history). */
export function cliWorkspace(dir: string | undefined): string {
  return workspaceKey([path.resolve(dir ?? process.cwd())]);
}

function turnStatus(t: ConversationTurn): string {
  if (t.state === 'done' && t.result) return `${t.result.release.status}${t.result.release.reason ? ` ${t.result.release.reason}` : ''}`;
  if (t.state === 'error' && t.error) return `error ${t.error.code}`;
  return t.state;
}

/** A conversation for reading in a terminal: each question, its answer, and the run that made it. */
export function formatConversation(c: Conversation): string {
  const lines = [`${c.title || '(untitled)'}`, `  id ${c.id} · ${c.turns.length} turn${c.turns.length === 1 ? '' : 's'} · updated ${c.updated_at}`];
  for (const t of c.turns) {
    lines.push('', `${t.turn_id}  [${turnStatus(t)}]  ${t.asked_at}${t.run_id ? `  trace ${t.run_id}` : ''}`, `  Q: ${t.question.replace(/\n/g, '\n     ')}`);
    const answer = t.result?.answer ?? t.error?.message ?? null;
    if (answer !== null) lines.push(`  A: ${answer.replace(/\n/g, '\n     ')}`);
  }
  return `${lines.join('\n')}\n`;
}

export function registerChatCommands(program: Command, { io, json, app }: CommandContext): void {
  const chat = program.command('chat').description('stored conversations of a workspace (ask in one with `docqa ask --conversation ID|new`): list, show, rename, delete');
  const ws = '--workspace <dir>';
  const wsHelp = 'the workspace (default: the current directory)';

  chat
    .command('list')
    .description('conversations of the workspace, most recently updated first; unreadable files are named with the reason')
    .option(ws, wsHelp)
    .option('--json', 'print JSON')
    .action(async (o: { workspace?: string; json?: boolean }) => {
      const listing = await (await app().openConversations(cliWorkspace(o.workspace))).list();
      if (o.json) return json(listing);
      if (listing.conversations.length === 0 && listing.unreadable.length === 0) io.stdout('no conversations in this workspace yet; `docqa ask --conversation new "…"` starts one\n');
      for (const c of listing.conversations) io.stdout(`${c.id}  ${c.updated_at}  ${String(c.turns).padStart(3)} turn${c.turns === 1 ? ' ' : 's'}  ${c.title}\n`);
      for (const u of listing.unreadable) io.stderr(`docqa: cannot read conversation ${u.id} (${u.code}): ${u.message}; it is left as it is\n`);
    });

  chat
    .command('show')
    .description('one conversation: each question, its answer (or why there is none), its status and trace')
    .argument('<id>')
    .option(ws, wsHelp)
    .option('--json', 'print JSON (the stored conversation)')
    .action(async (id: string, o: { workspace?: string; json?: boolean }) => {
      const c = await (await app().openConversations(cliWorkspace(o.workspace))).get(id);
      if (o.json) return json(c);
      io.stdout(formatConversation(c));
    });

  chat
    .command('rename')
    .description('give a conversation a title (by default it is its first question)')
    .argument('<id>')
    .argument('<title>')
    .option(ws, wsHelp)
    .action(async (id: string, title: string, o: { workspace?: string }) => {
      const c = await (await app().openConversations(cliWorkspace(o.workspace))).rename(id, title);
      io.stdout(`renamed ${c.id}: ${c.title}\n`);
    });

  chat
    .command('delete')
    .description('delete a conversation (its traces stay)')
    .argument('<id>')
    .option(ws, wsHelp)
    .action(async (id: string, o: { workspace?: string }) => {
      await (await app().openConversations(cliWorkspace(o.workspace))).delete(id);
      io.stdout(`deleted conversation ${id}\n`);
    });
}
