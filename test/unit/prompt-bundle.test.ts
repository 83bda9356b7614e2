import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { baselineDir, loadBundle, renderPrompt } from '../../src/harness/prompt-bundle';
import { tempDir } from '../helpers';

describe('prompt bundles', () => {
  it('loads both release baselines with a content hash and all four placeholders', async () => {
    const zh = await loadBundle(path.join(baselineDir(), 'baseline-zh'));
    const en = await loadBundle(path.join(baselineDir(), 'baseline-en'));
    assert.deepEqual([zh.id, zh.language, zh.parent, en.parent], ['baseline-zh', 'zh', null, 'baseline-zh']);
    assert.match(zh.hash, /^[0-9a-f]{64}$/);
    assert.notEqual(zh.hash, en.hash);
    assert.ok(zh.text.includes('你是“文档学习问答 Agent”') && zh.text.includes('previous_observation'));
    assert.ok(en.text.includes('stop_required'));
  });

  it('renders only the placeholders: JSON examples stay, and a question quoting a placeholder is not expanded', async () => {
    const zh = await loadBundle(path.join(baselineDir(), 'baseline-zh'));
    const out = renderPrompt(zh, { tools: 'TOOLS', collection_status: '{"snapshot_id":"s1"}', question: '什么是 {history}?', history: 'HIST' });
    assert.ok(out.includes('<tools>\nTOOLS\n</tools>'));
    assert.ok(out.includes('<question>\n什么是 {history}?\n</question>'));
    assert.ok(out.includes('"payload": {...}'));
    assert.ok(!/\{(tools|collection_status)\}/.test(out));
  });

  it('the hash is identity: changing one byte of the template changes it; a template missing a placeholder is refused', async () => {
    const dir = tempDir();
    fs.cpSync(path.join(baselineDir(), 'baseline-en'), dir, { recursive: true });
    const before = (await loadBundle(dir)).hash;
    fs.appendFileSync(path.join(dir, 'system.md'), ' ');
    assert.notEqual((await loadBundle(dir)).hash, before);
    fs.writeFileSync(path.join(dir, 'system.md'), 'no placeholders here');
    await assert.rejects(loadBundle(dir), /lacks \{tools\}, \{collection_status\}, \{question\}, \{history\}/);
  });
});
