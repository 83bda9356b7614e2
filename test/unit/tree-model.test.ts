import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Source } from '../../src/index/sources/sources';
import type { SnapshotManifest } from '../../src/index/store/snapshot-manifest';
import { snapshotNodes, sourceNodes } from '../../src/vscode/tree-model';

const t = (m: string, ...args: Array<string | number>) => m.replace(/\{(\d+)\}/g, (_x, i: string) => String(args[Number(i)]));
const root = path.join(path.sep, 'notes');
const source = (id: string, dir: string, label: string): Source => ({ id, kind: 'folder', path: path.join(root, dir), label, aliases: [], include: [], exclude: [], include_hidden: false });
const doc = (id: string, file: string, title: string, blocks: number) => ({ doc_id: id, path: path.join(root, file), title, content_hash: 'h', byte_size: 1, mtime_ms: 0, source_label: 'x', aliases: [], blocks, tokens: blocks * 10, reused: false, segment: 'g1' });

describe('the Sources and Snapshots trees, from application-layer state', () => {
  it('each source lists its documents (title, blocks) then its failures (stage/code, the reason on hover); a file of one source is not shown under another of a similar name', () => {
    const active = {
      documents: [doc('d2', 'bio/b.md', 'Membranes', 4), doc('d1', 'bio/a.md', 'Cells', 7), doc('d3', 'bio-extra/c.md', 'Other', 1)],
      failed_documents: [{ path: path.join(root, 'bio', 'broken.pdf'), stage: 'parse' as const, code: 'corrupt' as const, message: 'PDF could not be read' }],
    };
    const [bio, extra] = sourceNodes([source('s1', 'bio', 'bio'), source('s2', 'bio-extra', 'bio-extra')], active, t);
    assert.deepEqual([bio!.label, bio!.description, bio!.contextValue], ['bio', '2 documents, 1 failed', 'source']);
    assert.deepEqual(bio!.children.map((c) => [c.label, c.description, c.contextValue]), [['Cells', '7 blocks', 'document'], ['Membranes', '4 blocks', 'document'], ['broken.pdf', 'failed: parse/corrupt', 'failedDocument']]);
    assert.match(bio!.children[2]!.tooltip, /PDF could not be read$/);
    assert.deepEqual(extra!.children.map((c) => c.label), ['Other']);
    assert.equal(sourceNodes([source('s1', 'bio', 'bio')], null, t)[0]!.description, 'not indexed yet');
  });

  it('a document indexed without some pages (a scan with OCR off) is shown once, as partial with its unread pages, never as complete', () => {
    const scan = path.join(root, 'bio', 'handout.pdf');
    const unread = [2, 3, 4].map((page) => ({ page, code: 'no_text' as const, reason: 'it is an image without text (a scan)', image_only: true as const }));
    const active = {
      documents: [{ ...doc('d1', 'bio/handout.pdf', 'Handout', 3), unread_pages: unread }, doc('d2', 'bio/a.md', 'Cells', 7)],
      failed_documents: [{ path: scan, stage: 'parse' as const, code: 'no_text' as const, message: 'pages 2–4 of handout.pdf are images without text; turn on OCR to read them', pages: [2, 3, 4] }],
    };
    const [bio] = sourceNodes([source('s1', 'bio', 'bio')], active, t);
    assert.equal(bio!.description, '2 documents (1 partial)');
    assert.deepEqual(bio!.children.map((c) => [c.label, c.description, c.icon]), [['Cells', '7 blocks', 'file'], ['Handout', '3 blocks, partial: pages 2–4 not read', 'warning']]);
    assert.match(bio!.children[1]!.tooltip, /pages 2–4 of handout\.pdf are images without text; turn on OCR to read them$/);
  });

  it("what a source holds that was not read (secret-looking, links out of it, .gitignore) is listed under one folded node, not mixed with the documents", () => {
    const skipped = [
      { path: path.join(root, 'bio', '.env'), kind: 'file' as const, reason: 'secret_looking' as const },
      { path: path.join(root, 'bio', 'drafts'), kind: 'folder' as const, reason: 'gitignored' as const },
      { path: path.join(root, 'other', 'x.md'), kind: 'file' as const, reason: 'outside_source' as const },
    ];
    const [bio] = sourceNodes([source('s1', 'bio', 'bio')], { documents: [doc('d1', 'bio/a.md', 'Cells', 7)], failed_documents: [], skipped }, t);
    assert.deepEqual(bio!.children.map((c) => [c.label, c.contextValue]), [['Cells', 'document'], ['Not read (2)', 'skipped']]);
    assert.deepEqual(bio!.children[1]!.children.map((c) => [c.label, c.description, c.icon]), [['.env', 'looks like a secret', 'lock'], ['drafts', '.gitignore', 'folder']]);
    assert.equal(bio!.description, '1 documents', 'skipped entries are not counted as documents');
  });

  it('bidi controls in titles, file names and failure reasons show as visible tags, so a row reads in the order it is stored', () => {
    const active = {
      documents: [doc('d1', 'bio/a\u202eDM.txt', 'Cells \u202edrawkcab', 1)],
      failed_documents: [{ path: path.join(root, 'bio', 'x\u2066.pdf'), stage: 'parse' as const, code: 'corrupt' as const, message: 'bad \u202a part' }],
    };
    const [bio] = sourceNodes([source('s1', 'bio', 'bio\u202e')], active, t);
    const shown = (n: typeof bio): string[] => [n!.label, n!.description, n!.tooltip, ...n!.children.flatMap(shown)];
    assert.doesNotMatch(shown(bio).join('\n'), /[\u202a-\u202e\u2066-\u2069]/);
    assert.equal(bio!.children[0]!.file, path.join(root, 'bio/a\u202eDM.txt'), 'the file opened on click is the real one');
    assert.equal(bio!.label, 'bio‹U+202E›');
    assert.equal(bio!.children[0]!.label, 'Cells ‹U+202E›drawkcab');
    assert.deepEqual([bio!.children[1]!.label, bio!.children[1]!.tooltip.split('\n')[1]], ['x‹U+2066›.pdf', 'bad ‹U+202A› part']);
  });

  it('snapshots: the active one is marked, with state, documents, failures and the embedding model', () => {
    const m = (id: string, state: SnapshotManifest['state'], failed: number, embedding: SnapshotManifest['embedding']) => ({ id, state, created_at: '2026-12-01T10:15:30.000Z', stats: { documents: 40, failed_documents: failed } as SnapshotManifest['stats'], embedding });
    const [a, b] = snapshotNodes([m('s2', 'ready_partial', 2, { provider: 'none' }), m('s1', 'ready', 0, { provider: 'openai-compatible', family: 'f', model: 'text-embedding-v4', dimensions: 1024 })], 's2', t);
    assert.deepEqual([a!.label, a!.description, a!.contextValue], ['● 2026-12-01 10:15', 'ready_partial · 40 documents, 2 failed · keyword-only', 'activeSnapshot']);
    assert.deepEqual([b!.description, b!.contextValue], ['ready · 40 documents · text-embedding-v4', 'snapshot']);
  });
});
