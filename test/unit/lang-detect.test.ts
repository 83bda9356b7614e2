import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countScripts, detectLang } from '../../src/index/blocks/lang-detect';

const lang = (t: string) => detectLang(countScripts(t));

describe('detectLang', () => {
  it('tells Chinese, English, Japanese and mixed text apart', () => {
    assert.equal(lang('计算属性默认是只读的。当你尝试修改一个计算属性时，你会收到一个运行时警告。'), 'zh');
    assert.equal(lang('Computed properties are by default getter-only. If you attempt to assign a new value, you will get a warning.'), 'en');
    assert.equal(lang('標準マーケットモデルは２次元で説明する。取引できない商品がある。'), 'ja');
    assert.equal(lang('这一节介绍 reactivity system 的 basic concepts and the main ideas behind it，以及它的设计。'), 'mixed');
    assert.equal(lang('12 34'), 'und');
  });
  it('does not count inline code, links and tags as prose', () => {
    assert.equal(lang('这里的模板看起来有些复杂，它的计算依赖于 `author.books.length > 0` 和 [链接](https://example.com/some/long/path)。'), 'zh');
  });
});
