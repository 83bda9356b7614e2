import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { commands: Array<{ command: string; title: string }>; menus: Record<string, Array<{ command: string }>> } };

/** The command ids the extension's code registers (registerCommand('…') or the extension's cmd('…')). */
function registered(): Set<string> {
  const files = [path.join(ROOT, 'src', 'extension.ts'), ...fs.readdirSync(path.join(ROOT, 'src', 'vscode')).map((f) => path.join(ROOT, 'src', 'vscode', f))];
  const ids = new Set<string>();
  for (const f of files) for (const m of fs.readFileSync(f, 'utf8').matchAll(/(?:registerCommand|\bcmd|\.command)\(\s*'(docqa\.[A-Za-z]+)'/g)) ids.add(m[1]!);
  return ids;
}

describe('the extension manifest', () => {
  it('every contributed command has a handler in the code, and the code registers no command the manifest does not contribute', () => {
    const declared = pkg.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual([...registered()].sort(), declared);
    for (const [menu, items] of Object.entries(pkg.contributes.menus)) for (const i of items) assert.ok(declared.includes(i.command), `${menu} names ${i.command}, which is not contributed`);
  });
});
