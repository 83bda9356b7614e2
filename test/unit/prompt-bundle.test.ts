import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildRunManifest } from '../../src/app/run-manifest';
import { DEFAULT_SETTINGS } from '../../src/app/settings';
import { DataDir } from '../../src/common/data-dir';
import { baselineDir, loadBundle, renderPrompt, renderTemplate, withConversationSlot } from '../../src/harness/prompt-bundle';
import { newBundle, resolveBundle } from '../../src/harness/prompt-store';
import type { SnapshotManifest } from '../../src/index/store/snapshot-manifest';
import { tempDir } from '../helpers';

const values = { tools: 'TOOLS', collection_status: '{"snapshot_id":"s1"}', question: 'Q?', history: 'HIST' };

/** A copy of a baseline in an older format: its templates as they were before (no {conversation} line). */
function olderCopy(from: string, version: 1 | 2, id: string, root = tempDir()): string {
  const dir = path.join(root, id);
  fs.mkdirSync(dir, { recursive: true });
  const src = path.join(baselineDir(), from);
  const strip = (f: string) => fs.writeFileSync(path.join(dir, f), fs.readFileSync(path.join(src, f), 'utf8').replace('{conversation}\n', ''));
  strip('system.md');
  if (version === 2) strip('final.md');
  const meta = JSON.parse(fs.readFileSync(path.join(src, 'bundle.json'), 'utf8')) as Record<string, unknown>;
  delete meta.conversation_template;
  if (version === 1) delete meta.final_template;
  fs.writeFileSync(path.join(dir, 'bundle.json'), JSON.stringify({ ...meta, formatVersion: version, id, parent: from }));
  return dir;
}

const snapshotManifest = { id: 's1', state: 'ready', failed_documents: [], embedding: { provider: 'none' } } as unknown as SnapshotManifest;
const manifestOf = (bundle: Awaited<ReturnType<typeof loadBundle>>) =>
  buildRunManifest({ appVersion: 't', bundle, tools: [], snapshot: snapshotManifest, settings: DEFAULT_SETTINGS });

describe('prompt bundles', () => {
  it('loads both release baselines (format 3) with a content hash, all placeholders and a conversation template', async () => {
    const zh = await loadBundle(path.join(baselineDir(), 'baseline-zh'));
    const en = await loadBundle(path.join(baselineDir(), 'baseline-en'));
    assert.deepEqual([zh.id, zh.language, zh.parent, en.parent, zh.formatVersion, en.formatVersion], ['baseline-zh', 'zh', null, 'baseline-zh', 3, 3]);
    assert.match(zh.hash, /^[0-9a-f]{64}$/);
    assert.notEqual(zh.hash, en.hash);
    assert.ok(zh.text.includes('你是“文档学习问答 Agent”') && zh.text.includes('previous_observation'));
    assert.ok(en.text.includes('stop_required'));
    for (const b of [zh, en]) {
      assert.ok(b.text.includes('</termination>\n{conversation}\n<question>') && b.final!.text.includes('</termination>\n{conversation}\n<question>'));
      assert.match(b.conversation!.text, /^<conversation>\n[^\n]+\n\{turns\}\n<\/conversation>\n$/);
      assert.equal(b.conversation!.from, b.id);
    }
  });

  it('renders only the placeholders: JSON examples stay, and a question quoting a placeholder is not expanded', async () => {
    const zh = await loadBundle(path.join(baselineDir(), 'baseline-zh'));
    const out = renderPrompt(zh, { ...values, question: '什么是 {history} 和 {conversation}?' });
    assert.ok(out.includes('<tools>\nTOOLS\n</tools>'));
    assert.ok(out.includes('<question>\n什么是 {history} 和 {conversation}?\n</question>'));
    assert.ok(out.includes('"payload": {...}'));
    assert.ok(!/\{(tools|collection_status)\}/.test(out));
  });

  it('an empty conversation renders the prompt without a conversation (no line left); a non-empty one stands on its own line before <question>', async () => {
    const en = await loadBundle(path.join(baselineDir(), 'baseline-en'));
    const without = renderPrompt(en, values);
    assert.equal(without, renderTemplate(en.text.replace('{conversation}\n', ''), values));
    assert.equal(renderPrompt(en, { ...values, conversation: '' }), without);
    const withIt = renderPrompt(en, { ...values, conversation: '<conversation>\nX\n</conversation>' });
    assert.ok(withIt.includes('</termination>\n<conversation>\nX\n</conversation>\n<question>\nQ?\n</question>'));
    assert.equal(withIt.replace('<conversation>\nX\n</conversation>\n', ''), without);
  });

  it('the hash is identity: one byte of any template changes it; a template missing a placeholder is refused', async () => {
    const dir = tempDir();
    fs.cpSync(path.join(baselineDir(), 'baseline-en'), dir, { recursive: true });
    const before = (await loadBundle(dir)).hash;
    fs.appendFileSync(path.join(dir, 'conversation.md'), ' ');
    const afterConversation = (await loadBundle(dir)).hash;
    assert.notEqual(afterConversation, before, 'the conversation template is part of the identity');
    fs.appendFileSync(path.join(dir, 'system.md'), ' ');
    assert.notEqual((await loadBundle(dir)).hash, afterConversation);
    fs.writeFileSync(path.join(dir, 'conversation.md'), '<conversation>\n</conversation>\n');
    await assert.rejects(loadBundle(dir), /conversation\.md lacks \{turns\}/);
    fs.cpSync(path.join(baselineDir(), 'baseline-en', 'conversation.md'), path.join(dir, 'conversation.md'));
    fs.writeFileSync(path.join(dir, 'final.md'), fs.readFileSync(path.join(dir, 'final.md'), 'utf8').replace('{conversation}\n', ''));
    await assert.rejects(loadBundle(dir), /final\.md lacks \{conversation\}/);
    fs.writeFileSync(path.join(dir, 'system.md'), 'no placeholders here');
    await assert.rejects(loadBundle(dir), /lacks \{tools\}, \{collection_status\}, \{question\}, \{history\}, \{conversation\}/);
  });

  it('format-1 and format-2 bundles still load with their old hash, borrow the baseline conversation template (the manifest says so), and place it where format 3 does', async () => {
    const data = new DataDir(tempDir());
    const en = await loadBundle(path.join(baselineDir(), 'baseline-en'));
    for (const version of [1, 2] as const) {
      const folder = olderCopy('baseline-en', version, `old-v${version}`, data.promptsDir);
      const sha = (f: string) => fs.readFileSync(path.join(folder, f));
      const h = crypto.createHash('sha256').update('en').update('\0').update(sha('system.md'));
      if (version === 2) h.update('\0final\0').update(sha('final.md'));
      const loaded = await loadBundle(folder);
      assert.equal(loaded.hash, h.digest('hex'), `format ${version} hashes as it always did (a frozen one stays usable)`);
      assert.equal(loaded.conversation, null);
      const b = await resolveBundle(data, `old-v${version}`);
      assert.equal(b.conversation!.hash, en.conversation!.hash);
      const m = manifestOf(b).prompt_bundle;
      assert.deepEqual([m.conversation_hash, m.conversation_from, m.final_from], [en.conversation!.hash, 'baseline-en', version === 1 ? 'baseline-en' : undefined]);
      // The same prompts as the baseline, with a conversation or without.
      for (const conversation of ['', '<conversation>\nX\n</conversation>']) {
        assert.equal(renderPrompt(b, { ...values, conversation }), renderPrompt(en, { ...values, conversation }));
        assert.equal(renderTemplate(b.final!.text, { ...values, tools: '', conversation }), renderTemplate(en.final!.text, { ...values, tools: '', conversation }));
      }
      // A copy is of the current format: the borrowed template becomes its own, its prompts unchanged.
      const copy = await newBundle(data, `old-v${version}`, `copy-v${version}`);
      const copied = await loadBundle(copy.path);
      assert.deepEqual([copied.formatVersion, copied.conversation!.from, copied.conversation!.text], [3, `copy-v${version}`, en.conversation!.text]);
      assert.equal(renderPrompt(copied, values), renderPrompt(en, values));
    }
    const own = manifestOf(en).prompt_bundle;
    assert.deepEqual([own.conversation_hash, own.conversation_from], [en.conversation!.hash, undefined]);
  });

  it('an older template without a <question> tag gets the conversation line before the line holding {question}', () => {
    assert.equal(withConversationSlot('A\nAsk: {question}\nB'), 'A\n{conversation}\nAsk: {question}\nB');
    assert.equal(withConversationSlot('{question} first'), '{conversation}\n{question} first');
    assert.equal(withConversationSlot('x {conversation} y'), 'x {conversation} y');
  });
});
