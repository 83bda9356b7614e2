import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AppSettings } from '../../src/app/settings';
import { STEP_CONTEXT_KEYS, WALKTHROUGH_ID, stepsDone, walkthroughContext } from '../../src/vscode/walkthrough';
import { itemsOf, mentionAt, rankItems, scopeOfItems, withoutMention } from '../../webview/chat/mention';

describe('the walkthrough’s context keys: from what happened', () => {
  const facts = (o: Partial<Parameters<typeof walkthroughContext>[0]> = {}) => ({ settings: AppSettings.parse({}), chatKey: false, embeddingKey: false, keywordOnlyChosen: false, sources: 0, snapshot: false, answered: false, ...o });
  it('a fresh install has done nothing; a key, a local server, embeddings with a key, keyword-only chosen, a source, a snapshot, an answer each check their step', () => {
    assert.deepEqual(walkthroughContext(facts()), { 'docqa.hasChatKey': false, 'docqa.chatModelChosen': false, 'docqa.embeddingsChosen': false, 'docqa.hasSources': false, 'docqa.hasSnapshot': false, 'docqa.hasAsked': false });
    assert.equal(walkthroughContext(facts({ chatKey: true }))['docqa.chatModelChosen'], true);
    assert.equal(walkthroughContext(facts({ settings: AppSettings.parse({ chat: { base_url: 'http://localhost:11434/v1' } }) }))['docqa.chatModelChosen'], true, 'a local server needs no key');
    const on = AppSettings.parse({ embedding: { provider: 'openai-compatible', base_url: 'https://api.example.com/v1', model: 'e' } });
    assert.equal(walkthroughContext(facts({ settings: on }))['docqa.embeddingsChosen'], false, 'on without a key is not usable yet');
    assert.equal(walkthroughContext(facts({ settings: on, embeddingKey: true }))['docqa.embeddingsChosen'], true);
    assert.equal(walkthroughContext(facts({ embeddingKey: true }))['docqa.embeddingsChosen'], false, 'a key while embeddings are off is not a choice');
    assert.equal(walkthroughContext(facts({ keywordOnlyChosen: true }))['docqa.embeddingsChosen'], true);
    assert.deepEqual([walkthroughContext(facts({ sources: 2 }))['docqa.hasSources'], walkthroughContext(facts({ snapshot: true }))['docqa.hasSnapshot'], walkthroughContext(facts({ answered: true }))['docqa.hasAsked']], [true, true, true]);
  });
  it('each step is marked done by the id VS Code gives it, once its key holds (VS Code misses a key already true when it registers the walkthrough)', () => {
    assert.deepEqual(stepsDone(walkthroughContext(facts())), []);
    assert.deepEqual(stepsDone(walkthroughContext(facts({ chatKey: true, sources: 1 }))), ['docqa.docqa#docqa.gettingStarted#chatModel', 'docqa.docqa#docqa.gettingStarted#addFolder']);
    // The steps and keys are package.json's: its walkthrough, each step's onContext event.
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { publisher: string; name: string; contributes: { walkthroughs: Array<{ id: string; steps: Array<{ id: string; completionEvents: string[] }> }> } };
    const walkthrough = manifest.contributes.walkthroughs[0]!;
    assert.equal(`${manifest.publisher}.${manifest.name}#${walkthrough.id}`, WALKTHROUGH_ID);
    const fromManifest = Object.fromEntries(walkthrough.steps.map((st) => [st.id, st.completionEvents.find((e) => e.startsWith('onContext:'))!.slice('onContext:'.length)]));
    assert.deepEqual(fromManifest, STEP_CONTEXT_KEYS);
  });
});

describe('the composer’s @: where a mention is typed, what it offers, the scope it makes', () => {
  const items = itemsOf(
    { snapshot_id: 's', sources: [{ label: 'notes', documents: 2 }], documents: [{ doc_id: 'd1', title: 'Cell Biology Notes', source_label: 'notes', file: 'cell-notes.md' }, { doc_id: 'd2', title: '中国历史笔记', source_label: 'notes', file: 'zh-history.md' }] },
    (n) => `${n} documents`,
  );
  it('a mention starts at the text’s start or after a space, and runs to the caret without spaces', () => {
    assert.deepEqual(mentionAt('@', 1), { start: 0, query: '' });
    assert.deepEqual(mentionAt('what about @cel', 15), { start: 11, query: 'cel' });
    assert.equal(mentionAt('mail me at a@b.c', 16), null, 'an address is not a mention');
    assert.equal(mentionAt('@cell biology', 13), null, 'a space ends it');
    assert.deepEqual(withoutMention('what about @cel?', 15, { start: 11 }), { text: 'what about ?', caret: 11 });
  });
  it('an empty query lists sources then documents; a fuzzy one ranks the best match first; chosen ones are not offered again', () => {
    assert.deepEqual(rankItems(items, '', new Set()).map((i) => i.label), ['notes', 'Cell Biology Notes', '中国历史笔记']);
    assert.equal(rankItems(items, 'cbn', new Set())[0]?.label, 'Cell Biology Notes');
    assert.equal(rankItems(items, '历史', new Set())[0]?.label, '中国历史笔记');
    assert.equal(rankItems(items, 'zh-hist', new Set())[0]?.label, '中国历史笔记', 'the file name matches too');
    assert.deepEqual(rankItems(items, '', new Set(['source:notes'])).map((i) => i.label), ['Cell Biology Notes', '中国历史笔记']);
    assert.deepEqual(rankItems(items, 'qqqq', new Set()), []);
  });
  it('chosen items make the question’s scope: sources by label, documents by id', () => {
    assert.equal(scopeOfItems([]), null);
    assert.deepEqual(scopeOfItems([items[0]!, items[2]!]), { sources: ['notes'], doc_ids: ['d2'] });
  });
});

describe('the walkthrough in the manifest', () => {
  const root = path.join(__dirname, '..', '..');
  const read = (f: string) => JSON.parse(fs.readFileSync(path.join(root, f), 'utf8')) as Record<string, unknown>;
  it('five steps, each completing on what happened, with media in English and Chinese that exist', () => {
    const pkg = read('package.json') as { contributes: { walkthroughs: Array<{ id: string; steps: Array<{ id: string; completionEvents: string[]; media: { markdown: string } }> }> } };
    const [w] = pkg.contributes.walkthroughs;
    assert.equal(w?.id, 'docqa.gettingStarted');
    assert.deepEqual(w!.steps.map((s) => [s.id, s.completionEvents]), [
      ['chatModel', ['onContext:docqa.chatModelChosen']],
      ['embeddings', ['onContext:docqa.embeddingsChosen', 'onCommand:docqa.useKeywordOnly']],
      ['addFolder', ['onContext:docqa.hasSources']],
      ['build', ['onContext:docqa.hasSnapshot']],
      ['ask', ['onContext:docqa.hasAsked']],
    ]);
    for (const nls of [read('package.nls.json'), read('package.nls.zh-cn.json')]) {
      for (const s of w!.steps) {
        const file = nls[s.media.markdown.replace(/^%|%$/g, '')] as string;
        assert.ok(fs.existsSync(path.join(root, file)), `${file} exists`);
      }
    }
  });
});
