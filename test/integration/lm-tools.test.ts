import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import { TOOLS, toolJsonSchema } from '../../src/tools/registry';
import { invocationWords, invokeToolText, languageModelTools, lmToolName } from '../../src/vscode/lm-tool-text';
import { fixture, tempDir } from '../helpers';

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { contributes: { languageModelTools: unknown[] } };

async function indexedApp() {
  const notes = tempDir('docqa-lmtools-notes-');
  fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(notes, 'cells.md'));
  const app = new DocQaApp({ dataDir: path.join(tempDir('docqa-lmtools-'), 'data'), settings: AppSettings.parse({}), keys: fixedKeys(undefined, undefined), appVersion: 'test' });
  await app.addSources([notes]);
  await (await app.startBuild({ confirmEgress: async () => true })).done;
  return app;
}

describe('DocQA tools as VS Code Language Model Tools', () => {
  it('the contribution names the five tools, #-referenceable, with the input schemas of the tool values (package.json holds exactly that)', () => {
    const tools = languageModelTools();
    assert.deepEqual(tools.map((t) => t.name), TOOLS.map((t) => lmToolName(t.name)));
    for (const [i, t] of tools.entries()) {
      assert.deepEqual(t.inputSchema, toolJsonSchema(TOOLS[i]!));
      assert.equal(t.canBeReferencedInPrompt, true);
      assert.equal(t.toolReferenceName, t.name);
      assert.ok(!('confirmationMessages' in t));
      assert.match(String(t.modelDescription), /Read-only/);
    }
    assert.deepEqual(pkg.contributes.languageModelTools, JSON.parse(JSON.stringify(tools)), 'run npm run gen:manifest');
  });

  it('while a tool runs, the chat shows its display name in the UI language, as the tools list does (not its id)', () => {
    const nls = (file: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', file), 'utf8')) as Record<string, string>;
    const [en, zh] = [nls('package.nls.json'), nls('package.nls.zh-cn.json')];
    for (const t of TOOLS) {
      const key = `languageModelTool.${lmToolName(t.name)}.displayName`;
      assert.equal(invocationWords(lmToolName(t.name), 'en'), `${en[key]}…`);
      assert.equal(invocationWords(lmToolName(t.name), 'zh'), `${zh[key]}…`);
    }
    assert.equal(invocationWords('docqa_search_blocks', 'zh'), 'DocQA: 搜索文档…');
  });

  it('a result is text that keeps each block’s doc_id#block_id, title, source and section; an error and an unknown tool say so', async () => {
    const app = await indexedApp();
    const text = await invokeToolText(app, 'docqa_search_blocks', { query: 'cell membrane' }, undefined);
    assert.match(text, /^# docqa_search_blocks \(DocQA, read-only; cite blocks as doc_id#block_id\)\n/);
    const body = parse(text.slice(text.indexOf('\n') + 1)) as { blocks: Array<Record<string, unknown>> };
    assert.ok(body.blocks.length > 0);
    for (const b of body.blocks) {
      assert.equal(b.ref, `${b.doc_id}#${b.block_id}`);
      for (const k of ['doc_title', 'source_label', 'section_path', 'text']) assert.ok(k in b, `${k} in ${JSON.stringify(b)}`);
    }
    const docs = await invokeToolText(app, 'docqa_list_documents', {}, undefined);
    assert.match(docs, /doc_id: /);
    assert.match(await invokeToolText(app, 'docqa_list_blocks', { doc_id: 'nope' }, undefined), /^docqa_list_blocks failed \(scope_not_found\): /);
    assert.match(await invokeToolText(app, 'docqa_search_blocks', { query: 42 }, undefined), /^docqa_search_blocks failed \(invalid_argument\): query/);
    assert.match(await invokeToolText(app, 'docqa_delete_everything', {}, undefined), /^unknown DocQA tool docqa_delete_everything: the tools are docqa_list_documents, /);
  });

  it('a result larger than the token budget says so instead of flooding the agent', async () => {
    const app = await indexedApp();
    const doc = (parse((await invokeToolText(app, 'docqa_list_documents', {}, undefined)).split('\n').slice(1).join('\n')) as { documents: Array<{ doc_id: string }> }).documents[0]!.doc_id;
    const text = await invokeToolText(app, 'docqa_list_blocks', { doc_id: doc }, 20);
    assert.match(text, /^docqa_list_blocks: the result is about \d+ tokens, more than the 20 this chat allows for it; nothing of it is given\. Narrow the request/);
  });

  it('each invocation reads the snapshot active when it starts, pinned for the call; with none, it says how to build one', async () => {
    const empty = new DocQaApp({ dataDir: path.join(tempDir('docqa-lmtools-empty-'), 'data'), settings: AppSettings.parse({}), keys: fixedKeys(undefined, undefined), appVersion: 'test' });
    assert.match(await invokeToolText(empty, 'docqa_list_documents', {}, undefined), /failed \(collection_unavailable\): no snapshot is active; build one with/);
  });
});
