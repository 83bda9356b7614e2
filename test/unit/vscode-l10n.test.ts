import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.join(__dirname, '..', '..');

/** Every message the extension's code passes to vscode.l10n.t (or its alias t), as written. */
function messagesInCode(): string[] {
  const out = new Set<string>();
  const dir = path.join(ROOT, 'src', 'vscode');
  const files = [...fs.readdirSync(dir).filter((n) => n.endsWith('.ts')).map((n) => path.join(dir, n)), path.join(ROOT, 'src', 'extension.ts')];
  for (const f of files) {
    const code = fs.readFileSync(f, 'utf8');
    for (const m of code.matchAll(/\b(?:t|vscode\.l10n\.t)\(\s*'((?:[^'\\]|\\.)*)'/g)) out.add(m[1]!.replace(/\\'/g, "'"));
  }
  return [...out].sort();
}

describe('the extension in English and Simplified Chinese', () => {
  it('every message of the code has a Chinese translation, and the bundle has no message the code lost', () => {
    const zh = JSON.parse(fs.readFileSync(path.join(ROOT, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    const code = messagesInCode();
    assert.ok(code.length > 20, 'the scan found the messages');
    assert.deepEqual(Object.keys(zh).sort(), code);
    for (const [en, cn] of Object.entries(zh)) {
      assert.ok(cn.trim() && /[\u3400-\u9fff]/u.test(cn), `"${en}" has a Chinese translation`);
      // Placeholders survive translation.
      assert.deepEqual((cn.match(/\{\d+\}/g) ?? []).sort(), (en.match(/\{\d+\}/g) ?? []).sort(), en);
    }
  });
});
