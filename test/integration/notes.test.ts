import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { workspaceKey } from '../../src/app/conversations/workspace-key';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import { loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { observationsOf } from '../fakes/scripted-replies';
import { fixture, tempDir } from '../helpers';
import { act } from './agent-setup';

/** Markdown links of a note: text and target. */
const links = (md: string) => [...md.matchAll(/\[([^\]]*)\]\(([^)\s]+)\)/g)].map((m) => ({ text: m[1]!, target: m[2]! }));

describe('answers kept: Markdown with citation links, notes saved into a folder, a whole conversation exported', () => {
  let server: FakeOpenAIServer;
  let app: DocQaApp;
  let notesSrc: string;
  const ws = workspaceKey([tempDir('docqa-ws-')]);
  before(async () => {
    server = await new FakeOpenAIServer().start();
    // A folder whose name needs encoding in a link, a Markdown note and a PDF.
    notesSrc = path.join(tempDir('docqa-notes-'), 'my notes [2026]');
    fs.mkdirSync(notesSrc);
    fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(notesSrc, 'cell notes.md'));
    fs.copyFileSync(fixture('pdf', 'photosynthesis-en.pdf'), path.join(notesSrc, 'photosynthesis-en.pdf'));
    app = new DocQaApp({ dataDir: path.join(tempDir('docqa-kept-'), 'data'), settings: AppSettings.parse({ chat: { base_url: server.baseURL, idle_timeout_ms: 2000, total_timeout_ms: 10_000 } }), keys: fixedKeys('sk-test', undefined), appVersion: 'test' });
    await app.addSources([notesSrc]);
    await (await app.startBuild({ confirmEgress: async () => true })).done;
  });
  after(async () => {
    assert.deepEqual(server.scriptErrors, []);
    await server.close();
  });

  it('a note links each citation to its file and lines (text) or page (PDF), relative to the folder it is saved in, and never overwrites', async () => {
    server.scriptChat(act('search_blocks', { query: 'slide water Calvin cycle light' }), (body) => {
      const blocks = observationsOf(body)[0]!.payload!.blocks!;
      const text = blocks.find((b) => !b.ref.includes('pdf') && /water|slide/i.test(b.text)) ?? blocks[0]!;
      const pdf = blocks.find((b) => b !== text)!;
      return `Thought: done.\nAction: Finish[Prepare the slide with water【来源:${text.ref}】 and the Calvin cycle fixes carbon【来源:${pdf.ref}】.]`;
    });
    const asked = await app.askInConversation({ workspace: ws, conversation_id: null, question: 'How is a slide prepared? And the Calvin cycle?' });
    const cites = asked.turn.result!.citations;
    assert.equal(cites.length, 2);
    const snapshot = (await loadActiveSnapshot(app.dir))!;
    const block = (ref: string) => {
      const [docId, blockId] = ref.split('#');
      const d = snapshot.documents.find((x) => x.doc_id === docId)!;
      return { doc: d, block: d.blocks.find((b) => b.block_id === blockId)! };
    };

    const folder = tempDir('docqa-kept-notes-');
    const file = await app.saveNote({ workspace: ws, conversation_id: asked.conversation_id, turn_id: asked.turn.turn_id, lang: 'en', folder });
    assert.equal(path.dirname(file), folder);
    assert.match(path.basename(file), /^\d{4}-\d{2}-\d{2} How is a slide prepared And the Calvin cycle\.md$/);
    const md = fs.readFileSync(file, 'utf8');
    assert.ok(md.startsWith('# How is a slide prepared? And the Calvin cycle?\n'));
    const all = links(md);
    // Inline [1] [2] and the two sources: every target opens the cited spot.
    assert.equal(all.length, 4);
    for (const l of all) {
      const [rel, frag] = l.target.split('#');
      const target = path.resolve(folder, decodeURIComponent(rel!));
      assert.ok(fs.existsSync(target), `${l.target} resolves to a file`);
      const ref = cites.find((c) => block(c.ref).doc.path === target)!.ref;
      const at = block(ref).block.location;
      if (at.kind === 'lines') assert.equal(frag, at.line_end > at.line_start ? `L${at.line_start}-L${at.line_end}` : `L${at.line_start}`);
      else if (at.kind === 'page') assert.equal(frag, `page=${at.page}&docqa=${encodeURIComponent(ref)}`);
      else assert.fail(`the fixtures cite lines and pages only, not ${at.kind}`);
    }
    assert.match(md, /\n1\. \[Cell Biology Notes § .+, lines \d+–\d+\]\(\.\.\/.+\/my%20notes%20%5B2026%5D\/cell%20notes\.md#L\d+(-L\d+)?\)\n/);
    assert.match(md, /\n2\. \[.+, p\. \d+\]\(.+photosynthesis-en\.pdf#page=\d+&docqa=[^)#\s]+%23[^)#\s]+\)\n/);
    assert.ok(!md.includes('来源'), 'no raw marker is left');

    // The same answer again: a second file beside the first, the first untouched.
    const again = await app.saveNote({ workspace: ws, conversation_id: asked.conversation_id, turn_id: asked.turn.turn_id, lang: 'en', folder });
    assert.notEqual(again, file);
    assert.match(path.basename(again), / \(2\)\.md$/);
    assert.equal(fs.readFileSync(file, 'utf8'), md);

    // Copy (no folder): file:// URLs to the same spots.
    const copied = await app.answerMarkdown({ workspace: ws, conversation_id: asked.conversation_id, turn_id: asked.turn.turn_id, lang: 'zh', linkBase: null });
    for (const l of links(copied.markdown)) assert.ok(fs.existsSync(fileURLToPath(l.target.split('#')[0]!)), l.target);
    assert.match(copied.markdown, /\*\*来源\*\*/);
    assert.match(copied.markdown, /第 \d+–\d+ 行/);
  });

  it('a whole conversation exports as one note; a missing folder is refused with its name', async () => {
    server.scriptChat('Thought: none.\nAction: Finish[First answer.]');
    const first = await app.askInConversation({ workspace: ws, conversation_id: null, question: 'One?' });
    server.scriptChat('Thought: none.\nAction: Finish[Second answer.]');
    await app.askInConversation({ workspace: ws, conversation_id: first.conversation_id, question: 'Two?' });
    const folder = tempDir('docqa-export-');
    const file = await app.saveNote({ workspace: ws, conversation_id: first.conversation_id, turn_id: null, lang: 'en', folder });
    const md = fs.readFileSync(file, 'utf8');
    assert.match(md, /^# One\?\n\n## One\?\n\nFirst answer\.\n\n## Two\?\n\nSecond answer\.\n/);
    await assert.rejects(app.saveNote({ workspace: ws, conversation_id: first.conversation_id, turn_id: null, lang: 'en', folder: path.join(folder, 'nope') }), /the folder .*nope does not exist/);
  });
});
