import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { RELEASE_STATES, RELEASE_STATUSES, releaseStateOf } from '../../src/shared/release-states';
import { ReleaseStatus } from '../../src/shared/run-result';

const root = path.join(__dirname, '..', '..');

/** Each release state is one value every host reads: what it must hold for them to show it. */
describe('release states', () => {
  it('the release schema takes exactly the described states, in their order', () => {
    assert.deepEqual(ReleaseStatus.options, RELEASE_STATUSES);
    assert.deepEqual(Object.keys(RELEASE_STATES), RELEASE_STATUSES);
  });

  it('each state has its words in both languages, an icon the codicon font has and a tone the chat colours', () => {
    const codicons = fs.readFileSync(path.join(root, 'node_modules', '@vscode', 'codicons', 'dist', 'codicon.css'), 'utf8');
    const css = fs.readFileSync(path.join(root, 'webview', 'chat', 'chat.css'), 'utf8');
    for (const status of RELEASE_STATUSES) {
      const s = RELEASE_STATES[status];
      assert.ok(s.label.en && s.label.zh, status);
      for (const release of [{ reason: null, detail: null }, { reason: 'X', detail: 'why' }]) {
        const says = s.says(release);
        if (says) assert.ok(says.en && says.zh, `${status} says something in both languages`);
      }
      assert.ok(codicons.includes(`.codicon-${s.icon}:before`), `${status}: codicon-${s.icon}`);
      assert.ok(css.includes(`.release.tone-${s.tone} `), `${status}: chat.css colours tone-${s.tone}`);
    }
  });

  it('a status from outside the schema (a newer DocQA’s trace) has no state, and no inherited key passes for one', () => {
    assert.equal(releaseStateOf('DEFERRED'), null);
    assert.equal(releaseStateOf('toString'), null);
    assert.equal(releaseStateOf('FAILED'), RELEASE_STATES.FAILED);
  });
});
