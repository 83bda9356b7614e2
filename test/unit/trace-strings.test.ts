import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DYNAMIC_KEYS, TRANSLATIONS, setLanguage, t } from '../../src/shared/trace-strings';

const DIR = path.join(__dirname, '..', '..', 'webview', 'trace');

/** Every message the trace view's code passes to t('…'), as written. */
function messagesInCode(): string[] {
  const out = new Set<string>();
  for (const f of fs.readdirSync(DIR).filter((n) => /\.tsx?$/.test(n))) {
    for (const m of fs.readFileSync(path.join(DIR, f), 'utf8').matchAll(/\bt\(\s*'((?:[^'\\]|\\.)*)'/g)) out.add(m[1]!.replace(/\\'/g, "'"));
  }
  return [...out].sort();
}

describe('the trace viewer in English and Simplified Chinese', () => {
  it('has a Chinese translation for every message of the view, and none the view lost', () => {
    const zh = TRANSLATIONS['zh-cn']!;
    const code = [...messagesInCode(), ...DYNAMIC_KEYS].sort();
    assert.ok(code.length > 40, 'the scan found the messages');
    assert.deepEqual(Object.keys(zh).sort(), [...new Set(code)].sort());
    for (const [en, cn] of Object.entries(zh)) {
      assert.ok(cn.trim() && (/[\u3400-\u9fff]/u.test(cn) || /^(Span|Harness|token)$/.test(cn)), `"${en}" has a Chinese translation`);
      assert.deepEqual((cn.match(/\{\d+\}/g) ?? []).sort(), (en.match(/\{\d+\}/g) ?? []).sort(), en);
    }
  });

  it('picks Chinese for zh-cn, English otherwise, and fills placeholders in either', () => {
    setLanguage('zh-cn');
    assert.equal(t('Show prompt of turn {0}', 3), '查看第 3 轮的提示词');
    setLanguage('en');
    assert.equal(t('Show prompt of turn {0}', 3), 'Show prompt of turn 3');
    assert.equal(t('an unknown message {0}'), 'an unknown message {0}');
  });
});
