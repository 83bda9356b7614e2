import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

/**
 * The chat page reads a run through the vocabulary in src/shared (issue 33 item 2): its bundle, as
 * `npm run build` writes it, holds no module of the harness, the tools or the index — not even through
 * a module it imports (the lint zone checks direct imports; this checks what really ships).
 */
describe('what the chat page ships', () => {
  it('dist/chat.js is built from no module of src/harness, src/tools or src/index', () => {
    const map = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'chat.js.map'), 'utf8')) as { sources: string[] };
    const ours = map.sources.filter((s) => s.startsWith('../src/'));
    assert.ok(ours.some((s) => s === '../src/shared/run-result.ts'), 'the bundle reads the run vocabulary');
    assert.deepEqual(ours.filter((s) => /^\.\.\/src\/(harness|tools|index)\//.test(s)), []);
  });

  it('every webview bundle is built from src/shared alone of src/ (no layer of the core, no host)', () => {
    for (const bundle of ['webview.js', 'chat.js', 'trace.js', 'pdf-view.js', 'document-view.js']) {
      const map = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'dist', `${bundle}.map`), 'utf8')) as { sources: string[] };
      const ours = map.sources.filter((s) => s.startsWith('../src/'));
      assert.deepEqual(ours.filter((s) => !s.startsWith('../src/shared/')), [], bundle);
    }
  });
});
