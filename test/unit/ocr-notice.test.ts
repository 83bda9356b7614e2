/** What a build with OCR on says first (ocr-notice.ts): the cost a page, a long scan's cost, and where the time limit cuts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ocrNotice, pagesWithinLimit } from '../../src/app/ocr-notice';

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
});
