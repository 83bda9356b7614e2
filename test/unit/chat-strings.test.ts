import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EN } from '../../webview/chat/strings-en';
import { ZH } from '../../webview/chat/strings-zh';

describe('chat view strings', () => {
  it('English and Chinese have the same keys, nested tables included', () => {
    const keys = (o: object, p = ''): string[] => Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? keys(v as object, `${p}${k}.`) : [`${p}${k}:${typeof v}`])).sort();
    assert.deepEqual(keys(ZH), keys(EN));
  });

  it('no string is left untranslated or empty', () => {
    const same = Object.keys(EN).filter((k) => typeof EN[k as keyof typeof EN] === 'string' && EN[k as keyof typeof EN] === ZH[k as keyof typeof ZH]);
    // The language names are each written in their own language, in both tables.
    assert.deepEqual(same, ['langZh', 'langEn']);
    for (const [k, v] of Object.entries(ZH)) if (typeof v === 'string') assert.ok(v.trim(), k);
  });
});
