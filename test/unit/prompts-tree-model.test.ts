import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BundleListing } from '../../src/harness/prompt-store';
import { promptNodes } from '../../src/vscode/prompts-tree-model';

const t = (message: string, ...args: Array<string | number>) => `«${message}${args.length ? `|${args.join(',')}` : ''}»`;
const HASH = 'a'.repeat(64);

const bundle = (o: Partial<BundleListing>): BundleListing => ({ id: 'baseline-en', version: '1.0.0', language: 'en', parent: null, hash: HASH, origin: 'baseline', frozen: true, active: false, path: '/p/baseline-en', template: '/p/baseline-en/system.md', problem: null, ...o });

describe('the Prompts view model', () => {
  it('lists release baselines first (read-only), then experiments with state, language, version and content hash', () => {
    const nodes = promptNodes([bundle({ id: 'baseline-en-exp1', origin: 'experimental', frozen: false, parent: 'baseline-en' }), bundle({}), bundle({ id: 'baseline-zh', language: 'zh' })], t);
    assert.deepEqual(nodes.map((n) => [n.label, n.contextValue, n.icon]), [
      ['● baseline-en', 'promptBaseline', 'lock'],
      ['● baseline-zh', 'promptBaseline', 'lock'],
      ['baseline-en-exp1', 'promptDraft', 'edit'],
    ]);
    assert.equal(nodes[2]!.description, `«draft» · en · 1.0.0 · ${HASH.slice(0, 12)}`);
    assert.match(nodes[2]!.tooltip, new RegExp(`«content hash \\{0\\}\\|${HASH}»\n«parent: \\{0\\}\\|baseline-en»`));
    assert.deepEqual(nodes[2]!.command, { id: 'docqa.editPrompt', args: [{ id: 'prompt:baseline-en-exp1' }] });
  });

  it('marks only the promoted bundle as used once one is promoted, and shows frozen bundles and problems', () => {
    const nodes = promptNodes([bundle({}), bundle({ id: 'exp', origin: 'experimental', frozen: true, active: true }), bundle({ id: 'broken', origin: 'experimental', frozen: true, hash: '', template: null, problem: 'changed after it was frozen' })], t);
    assert.deepEqual(nodes.map((n) => n.label), ['baseline-en', '● exp', 'broken']);
    assert.deepEqual(nodes.map((n) => n.contextValue), ['promptBaseline', 'promptFrozen', 'promptFrozen']);
    assert.match(nodes[1]!.tooltip, /«used by every question»/);
    assert.equal(nodes[2]!.icon, 'warning');
    assert.match(nodes[2]!.description, /«problem: \{0\}\|changed after it was frozen»$/);
    assert.equal(nodes[2]!.command, null, 'a bundle that cannot be loaded has no template to open');
  });
});
