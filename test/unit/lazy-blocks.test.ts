import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withSpots } from '../../src/app/block-spots';
import { startingQuestions } from '../../src/app/starting-questions';
import { DataDir } from '../../src/common/data-dir';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { addSources } from '../../src/index/sources/sources';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { runTool } from '../../src/tools/registry';
import { fixture, tempDir } from '../helpers';

/**
 * A loaded document makes its blocks when first read (a million objects at 1M blocks): what an empty
 * chat and its first tool calls do over a loaded knowledge base must not read every document's blocks.
 */
describe('a loaded knowledge base makes only the blocks it shows', () => {
  it('the starting questions and list_documents make none; a search, its payload’s estimate and its spots those of the documents it shows', async () => {
    const dir = new DataDir(tempDir());
    await addSources(dir, [fixture('markdown', 'cell-notes.md'), fixture('markdown', 'zh-history.md'), fixture('text', 'study-plan.txt')]);
    await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: { provider: 'none' }, embeddingApiKey: '', pool: createIngestPool(DEFAULT_INGEST_OPTIONS, null) });
    const snap = (await loadActiveSnapshot(dir))!;
    const unmade = (d: object) => typeof Object.getOwnPropertyDescriptor(d, 'blocks')?.get === 'function';
    assert.ok(snap.documents.every(unmade), 'a loaded document makes its blocks when first read');

    assert.equal(startingQuestions(snap, 'en').length, 3);
    const listed = (await runTool('list_documents', {}, { snapshot: snap })) as unknown as { documents: Array<{ doc_id: string; blocks: number }> };
    assert.equal(listed.documents.length, 3);
    assert.ok(snap.documents.every(unmade), 'still none made');

    const found = (await runTool('search_blocks', { query: 'mitochondria' }, { snapshot: snap })) as unknown as { blocks: Array<{ doc_id: string; ref: string }> };
    const spotted = withSpots(found as unknown as Record<string, unknown>, snap) as { blocks: Array<{ path?: string }> };
    assert.ok(spotted.blocks.length > 0 && spotted.blocks.every((b) => typeof b.path === 'string'), 'every shown block has its spot');
    const shown = new Set(found.blocks.map((b) => b.doc_id));
    assert.ok(shown.size > 0 && shown.size < 3, [...shown].join());
    for (const d of snap.documents) assert.equal(unmade(d), !shown.has(d.doc_id), d.doc_id);

    for (const d of listed.documents) assert.equal(d.blocks, snap.documents.find((x) => x.doc_id === d.doc_id)!.blocks.length, d.doc_id);
  });
});
