import fs from 'node:fs';
import path from 'node:path';
import { DocQaError } from '../../common/errors';
import { writeDurable } from '../../common/durable-write';
import type { BlockLookup, BlockRequest } from '../block-lookup';
import type { Conversation } from '../../shared/conversation';
import { type CitedSpot, type NoteOptions, conversationMarkdown, noteFileName, noteMarkdown } from './answer-markdown';

/** Which answer to keep: one turn of a conversation, or (turn_id null) the whole conversation. */
export interface NoteRequest {
  conversation: Conversation;
  turn_id: string | null;
}

/** Each cited block's spot, from the snapshot its answer was made from (or the active one). */
export async function citedSpots(c: Conversation, turnId: string | null, lookup: (r: BlockRequest) => Promise<BlockLookup>): Promise<Map<string, CitedSpot | null>> {
  const spots = new Map<string, CitedSpot | null>();
  for (const t of c.turns) {
    if (turnId !== null && t.turn_id !== turnId) continue;
    for (const cite of t.result?.citations ?? []) {
      if (spots.has(cite.ref)) continue;
      const b = await lookup({ doc_id: cite.doc_id, block_id: cite.block_id, ...(t.snapshot_id ? { snapshot_id: t.snapshot_id } : {}) });
      spots.set(cite.ref, b.found ? { doc_title: b.doc_title, section_path: b.section_path, path: b.path, location: b.location, ref: cite.ref } : null);
    }
  }
  return spots;
}

/** The Markdown of the request, and a title to name its file after. */
export function noteOf(req: NoteRequest, spots: ReadonlyMap<string, CitedSpot | null>, o: NoteOptions): { markdown: string; title: string } {
  if (req.turn_id === null) return { markdown: conversationMarkdown(req.conversation, spots, o), title: req.conversation.title };
  const turn = req.conversation.turns.find((t) => t.turn_id === req.turn_id);
  if (!turn) throw new DocQaError('conversation_not_found', `conversation ${req.conversation.id} has no turn ${req.turn_id}`);
  if (!turn.result) throw new DocQaError('no_answer', 'this question has no released answer to keep yet');
  return { markdown: noteMarkdown(turn, spots, o), title: turn.question };
}

/**
 * Writes a note into `folder` under a name made from its title and date, never over an existing file
 * (“… (2).md” then), atomically: a crash leaves the old folder or the whole note, never half of one.
 */
export async function writeNote(folder: string, title: string, madeAt: string, markdown: string): Promise<string> {
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new DocQaError('not_found', `the folder ${folder} does not exist: pick another one`);
  const base = noteFileName(title, madeAt).replace(/\.md$/, '');
  let file = path.join(folder, `${base}.md`);
  for (let i = 2; fs.existsSync(file); i++) file = path.join(folder, `${base} (${i}).md`);
  await writeDurable(file, markdown);
  return file;
}
