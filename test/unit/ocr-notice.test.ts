/** What a build with OCR on says first (ocr-notice.ts): the cost a page, a long scan's cost, and where the time limit cuts. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ocrNotice, pagesWithinLimit } from '../../src/app/ocr-notice';
import { ocrOnWords } from '../../src/vscode/ocr-words';

/** vscode.l10n.t as the extension host runs it: the message looked up in a bundle (the English itself when absent), {n} filled. */
function translator(bundle: Record<string, string>) {
  return (message: string, ...args: Array<string | number>) => (bundle[message] ?? message).replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));
}
const ZH = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;

describe('the OCR notice before a build', () => {
  it('says the seconds a page, what a 40-page scan costs, and how many pages fit in the document limit', () => {
    const words = ocrNotice({ max_document_ms: 60_000 });
    assert.match(words, /about 2–5 s a page \(a 40-page scan: 1–3 minutes\)/);
    assert.match(words, /A document may take 60 s \(ingest\.max_document_ms\): past about 10 scanned pages the rest are listed as unread; raise the limit to read them\./);
  });

  it('a larger limit lets more pages through; a tiny one still lets the first page be tried', () => {
    assert.equal(pagesWithinLimit({ max_document_ms: 600_000 }), 108);
    assert.equal(pagesWithinLimit({ max_document_ms: 1 }), 1);
  });

  it('the extension says it in the UI language: the same numbers in English, and in Chinese from the zh-cn bundle (not the English left in place)', () => {
    const keys: string[] = [];
    const en = ocrOnWords({ max_document_ms: 60_000 }, (m, ...a) => (keys.push(m), translator({})(m, ...a)));
    assert.match(en, /^DocQA: OCR is on: .*about 2–5 s a page \(a 40-page scan: 1–3 minutes\).*A document may take 60 s \(docqa\.ingest\.maxDocumentMs\): past about 10 scanned pages/);
    for (const k of keys) assert.ok(ZH[k], `the zh-cn bundle translates "${k}"`);
    const zh = ocrOnWords({ max_document_ms: 60_000 }, translator(ZH));
    assert.match(zh, /OCR 已开启/);
    assert.match(zh, /每页约 2–5 秒（40 页的扫描件约 1–3 分钟）/);
    assert.match(zh, /每个文档最多可用 60 秒.*超过约 10 个扫描页/);
    assert.doesNotMatch(zh, /images without text/);
  });
});
