import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { DataDir } from '../../src/common/data-dir';
import { EmbeddingConfig, type RemoteEmbeddingConfig } from '../../src/index/embed/embedding-client';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { isWithin } from '../../src/index/blocks/section-path';
import { type LoadedSnapshot, loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { addSources } from '../../src/index/sources/sources';
import { countTokens } from '../../src/common/tokenizer';
import { queryEmbedderFor } from '../../src/tools/query-embedder';
import { TOOLS, runTool, toolJsonSchema } from '../../src/tools/registry';
import type { ToolContext, ToolName, ToolPayload, ToolTraceEvent } from '../../src/tools/tool';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { CLI } from './cli';
import { spawnSync } from 'node:child_process';
import { fixture, tempDir } from '../helpers';
import { preparePdfThread } from '../../src/index/ingest/ingest-worker';

// This test process parses PDFs itself, as an ingestion worker does (pdf.js runs in workers only).
preparePdfThread();

/** Where each test snapshot lives, so the CLI variant can read it with --store. */
const storeOf = new WeakMap<LoadedSnapshot, string>();

async function snapshotOf(paths: string[], embedding: EmbeddingConfig = { provider: 'none' }): Promise<LoadedSnapshot> {
  const dir = new DataDir(tempDir());
  if (paths.length) await addSources(dir, paths);
  await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding, embeddingApiKey: '', pool: createIngestPool(DEFAULT_INGEST_OPTIONS, null) });
  const snap = (await loadActiveSnapshot(dir))!;
  storeOf.set(snap, dir.root);
  return snap;
}

/** The same call through the built `docqa tool` command: its stdout must be the very same payload. */
function viaCli(name: ToolName, input: unknown, c: ToolContext): ToolPayload {
  const r = spawnSync(process.execPath, [CLI, '--store', storeOf.get(c.snapshot)!, 'tool', name, JSON.stringify(input), '--snapshot', c.snapshot.manifest.id], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: tempDir('docqa-home-'), DOCQA_EMBEDDING_PROVIDER: 'none' },
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as ToolPayload;
}

type Block = { ref: string; doc_id: string; block_id: string; doc_title: string; source_label: string; section_path: string; text: string };

for (const via of ['in-process', 'cli'] as const) describe(`tool contracts (seed §10.1, Appendix A.2), ${via}`, () => {
  let snap: LoadedSnapshot;
  let empty: LoadedSnapshot;
  let ctx: ToolContext;
  const inProcess = via === 'in-process';
  const call = async (name: ToolName, input: unknown, c: ToolContext = ctx): Promise<ToolPayload> => (inProcess || c.onTrace || c.embedQuery ? runTool(name, input, c) : viaCli(name, input, c));
  const docId = (title: string) => snap.documents.find((d) => d.title === title)!.doc_id;

  before(async () => {
    const extra = tempDir('docqa-extra-');
    fs.writeFileSync(path.join(extra, 'sparse.md'), '# Sparse\n\n## Empty\n\n## Full\n\nOnly this section has text.\n');
    fs.writeFileSync(path.join(extra, 'accents.txt'), 'Le café est prêt. CAFÉ encore, et café.\n');
    snap = await snapshotOf([fixture('markdown'), fixture('text', 'study-plan.txt'), fixture('pdf', 'photosynthesis-zh.pdf'), fixture('pdf', 'photosynthesis-en.pdf'), extra]);
    empty = await snapshotOf([tempDir('docqa-nothing-')]);
    ctx = { snapshot: snap };
  });

  it('every payload carries a token_estimate at or a little above the index tokenizer’s count of the rest', async () => {
    for (const [name, input] of [
      ['list_documents', {}],
      ['get_outline', { doc_ids: [docId('Cell Biology Notes')] }],
      ['search_blocks', { query: 'microscope' }],
      ['list_blocks', { doc_id: docId('Cell Biology Notes') }],
      ['scan_term', { term: 'cell' }],
      ['scan_term', { term: 'e' }],
      ['list_blocks', { doc_id: docId('计算属性') }],
      ['list_blocks', { doc_id: 'nope' }],
      // Again: refs and block ids are now counted from what the first calls cached.
      ['scan_term', { term: 'cell' }],
      ['list_blocks', { doc_id: docId('计算属性') }],
    ] as const) {
      const p = await call(name, input);
      const { token_estimate, ...rest } = p;
      const exact = countTokens(JSON.stringify(rest));
      assert.ok(token_estimate >= exact && token_estimate <= exact * 1.1 + 10, `${name}: estimate ${token_estimate}, exact ${exact}`);
    }
  });

  it('an unexpected failure inside a tool is tool_internal_error, not a crash or an empty list', async () => {
    const broken = { ...snap, documents: [{ ...snap.documents[0]!, blocks: null }] } as unknown as LoadedSnapshot;
    const p = await runTool('list_blocks', { doc_id: snap.documents[0]!.doc_id }, { snapshot: broken });
    assert.deepEqual([p.error?.code, p.error?.retryable, p.blocks], ['tool_internal_error', false, undefined]);
    assert.match(p.error!.message, /^list_blocks failed: /);
  });

  it('the JSON Schema shown to the model comes from the same zod schema', () => {
    const schema = toolJsonSchema(TOOLS.find((t) => t.name === 'search_blocks')!);
    assert.deepEqual(schema.required, ['query']);
    assert.equal((schema.properties as Record<string, { minItems?: number }>).doc_ids!.minItems, 1);
    assert.equal(schema.additionalProperties, false);
  });

  describe('list_documents', () => {
    it('lists every document sorted by source, then title, then doc_id', async () => {
      const p = await call('list_documents', {});
      const docs = p.documents as Array<{ doc_id: string; title: string; source_label: string; sections: number; blocks: number; aliases: string[]; lang: string }>;
      assert.equal(p.total, docs.length);
      assert.equal(docs.length, snap.documents.length);
      const key = (d: (typeof docs)[number]) => [d.source_label, d.title, d.doc_id];
      const sorted = [...docs].sort((a, b) => (JSON.stringify(key(a)) < JSON.stringify(key(b)) ? -1 : 1));
      assert.deepEqual(docs.map((d) => d.doc_id), sorted.map((d) => d.doc_id));
      const cell = docs.find((d) => d.title === 'Cell Biology Notes')!;
      assert.deepEqual([cell.sections, cell.blocks, cell.lang], [6, snap.documents.find((d) => d.title === 'Cell Biology Notes')!.blocks.length, 'en']);
    });
    it('source matches the canonical name or an alias, case-insensitively, and nothing partial', async () => {
      const byName = await call('list_documents', { source: 'MARKDOWN' });
      assert.equal(byName.total, 4);
      const byAlias = await call('list_documents', { source: fixture('markdown') });
      assert.equal(byAlias.total, 4);
      const partial = await call('list_documents', { source: 'mark' });
      assert.deepEqual([partial.total, partial.empty_reason], [0, 'no_match']);
    });
    it('title_contains matches titles only; lang filters', async () => {
      assert.deepEqual(((await call('list_documents', { title_contains: 'CELL biology' })).documents as Block[]).map((d) => (d as unknown as { title: string }).title), ['Cell Biology Notes']);
      const contentOnly = await call('list_documents', { title_contains: 'mitochondria' });
      assert.equal(contentOnly.empty_reason, 'no_match');
      const zh = (await call('list_documents', { lang: 'zh' })).documents as Array<{ title: string }>;
      assert.deepEqual(zh.map((d) => d.title).sort(), ['中国历史笔记', '光合作用笔记', '计算属性'].sort());
    });
    it('an empty collection says collection_empty; bad input is invalid_argument', async () => {
      const p = await call('list_documents', {}, { snapshot: empty });
      assert.deepEqual([p.total, p.empty_reason], [0, 'collection_empty']);
      assert.equal((await call('list_documents', { lang: 'fr' })).error?.code, 'invalid_argument');
      assert.equal((await call('list_documents', { sauce: 'x' })).error?.code, 'invalid_argument');
    });
  });

  describe('get_outline', () => {
    it('keeps input order, reads a repeated id once, and shows no block ids', async () => {
      const a = docId('中国历史笔记');
      const b = docId('Cell Biology Notes');
      const p = await call('get_outline', { doc_ids: [a, b, a] });
      const docs = p.documents as Array<{ doc_id: string; sections: Array<Record<string, unknown>> }>;
      assert.deepEqual(docs.map((d) => d.doc_id), [a, b]);
      assert.ok(!JSON.stringify(p).includes('block_id'));
      assert.deepEqual(Object.keys(docs[1]!.sections[0]!).sort(), ['depth', 'direct_blocks', 'direct_tokens', 'first_sentence', 'ordinal', 'path', 'subtree_blocks', 'subtree_tokens', 'title'].sort());
      assert.deepEqual(docs[0]!.sections.map((s) => s.path), ['中国历史笔记', '中国历史笔记 > 秦朝', '中国历史笔记 > 汉朝', '中国历史笔记 > 汉朝 (2)', '中国历史笔记 > 汉朝 (2) > 人物 › 张骞']);
    });
    it('a document without headings has one root section', async () => {
      const p = await call('get_outline', { doc_ids: [docId('accents')] });
      assert.deepEqual((p.documents as Array<{ sections: Array<{ path: string }> }>)[0]!.sections.map((s) => s.path), ['accents']);
    });
    it('empty list → invalid_argument; any unknown id fails the whole call', async () => {
      assert.equal((await call('get_outline', { doc_ids: [] })).error?.code, 'invalid_argument');
      const p = await call('get_outline', { doc_ids: [docId('Cell Biology Notes'), 'd-missing'] });
      assert.deepEqual([p.error?.code, p.error?.retryable, p.documents], ['scope_not_found', false, undefined]);
      assert.match(p.error!.message, /d-missing/);
    });
  });

  describe('search_blocks', () => {
    it('returns at most 5 full blocks, keeps scores out of the payload and hands them to the trace', async () => {
      const events: ToolTraceEvent[] = [];
      const p = await call('search_blocks', { query: 'Calvin cycle sugar carbon' }, { snapshot: snap, onTrace: (e) => events.push(e) });
      const blocks = p.blocks as Block[];
      assert.ok(blocks.length > 0 && blocks.length <= 5);
      assert.equal(p.mode, 'keyword_only');
      assert.deepEqual(Object.keys(blocks[0]!).sort(), ['block_id', 'doc_id', 'doc_title', 'ref', 'section_path', 'source_label', 'text']);
      assert.equal(blocks[0]!.ref, `${blocks[0]!.doc_id}#${blocks[0]!.block_id}`);
      assert.match(blocks[0]!.text, /Calvin cycle/);
      assert.ok(!/bm25|cosine|fused|score/.test(JSON.stringify(p)));
      assert.equal(events.length, 1);
      assert.ok(((events[0]!.detail.hits as Array<{ bm25: number }>)[0]!.bm25 ?? 0) > 0);
    });
    it('doc_ids limits the scope; [] is invalid; an unknown doc fails the whole call; an empty query is invalid', async () => {
      const zh = docId('中国历史笔记');
      const p = await call('search_blocks', { query: '光反应 汉朝', doc_ids: [zh] });
      assert.ok((p.blocks as Block[]).every((b) => b.doc_id === zh));
      assert.equal((await call('search_blocks', { query: 'x', doc_ids: [] })).error?.code, 'invalid_argument');
      assert.equal((await call('search_blocks', { query: 'x', doc_ids: [zh, 'd-nope'] })).error?.code, 'scope_not_found');
      assert.equal((await call('search_blocks', { query: '   ' })).error?.code, 'invalid_argument');
      assert.equal((await call('search_blocks', { query: 'zzqxj' })).empty_reason, 'no_match');
      assert.equal((await call('search_blocks', { query: 'x' }, { snapshot: empty })).empty_reason, 'collection_empty');
    });
    it('is deterministic: the same input on the same snapshot gives identical bytes', async () => {
      for (const q of ['cell', '光合作用', 'the']) assert.equal(JSON.stringify(await call('search_blocks', { query: q })), JSON.stringify(await call('search_blocks', { query: q })));
    });
  });

  if (inProcess) describe('search_blocks with embeddings (fake server over HTTP)', () => {
    let server: FakeOpenAIServer;
    let hybrid: LoadedSnapshot;
    let config: RemoteEmbeddingConfig;
    before(async () => {
      server = await new FakeOpenAIServer().start();
      config = EmbeddingConfig.parse({ provider: 'openai-compatible', base_url: server.baseURL, model: 'fake', dimensions: 32, timeout_ms: 2000 }) as RemoteEmbeddingConfig;
      hybrid = await snapshotOf([fixture('markdown')], config);
    });
    after(() => server.close());
    it('fuses keyword and vector rankings', async () => {
      const p = await call('search_blocks', { query: 'light microscope slide' }, { snapshot: hybrid, embedQuery: queryEmbedderFor(hybrid.manifest.embedding, config, '') });
      assert.equal(p.mode, 'hybrid');
      assert.equal((p.blocks as Block[]).length, 5);
      assert.match((p.blocks as Block[])[0]!.text, /microscope|slide/);
    });
    it('a failed query embedding is upstream_unavailable (not retryable: its client already retried), never a keyword fallback', async () => {
      server.inject('/v1/embeddings', { kind: 'server_error' }, 2);
      const p = await call('search_blocks', { query: 'microscope' }, { snapshot: hybrid, embedQuery: queryEmbedderFor(hybrid.manifest.embedding, config, '') });
      assert.deepEqual([p.error?.code, p.error?.retryable, p.blocks], ['upstream_unavailable', false, undefined]);
      const none = await call('search_blocks', { query: 'microscope' }, { snapshot: hybrid });
      assert.equal(none.error?.code, 'upstream_unavailable');
      const other = await call('search_blocks', { query: 'microscope' }, { snapshot: hybrid, embedQuery: queryEmbedderFor(hybrid.manifest.embedding, { ...config, model: 'other' }, '') });
      assert.match(other.error?.message ?? '', /not the snapshot's/);
    });
  });

  describe('list_blocks', () => {
    it('a whole document: every block in block order, total equal to the blocks returned', async () => {
      const id = docId('Cell Biology Notes');
      for (const input of [{ doc_id: id }, { doc_id: id, section_paths: [] }]) {
        const p = await call('list_blocks', input);
        const blocks = p.blocks as Block[];
        assert.equal(p.total, blocks.length);
        assert.deepEqual(blocks.map((b) => b.block_id), snap.documents.find((d) => d.doc_id === id)!.blocks.map((b) => b.block_id));
      }
    });
    it('a path includes its descendants; several paths are a union in document order without repeats', async () => {
      const id = docId('Cell Biology Notes');
      const p = await call('list_blocks', { doc_id: id, section_paths: ['Cells > Organelles', 'Cells > Setup (2)', 'Cells > Setup (2) > Staining'] });
      const paths = (p.blocks as Block[]).map((b) => b.section_path);
      assert.deepEqual(paths, ['Cells > Setup (2)', 'Cells > Setup (2) > Staining', 'Cells > Organelles']);
    });
    it('any unknown path fails the whole call, never a partial list; a section without blocks is scope_empty', async () => {
      const id = docId('Cell Biology Notes');
      const p = await call('list_blocks', { doc_id: id, section_paths: ['Cells > Setup', 'Cells > Nope'] });
      assert.deepEqual([p.error?.code, p.blocks], ['scope_not_found', undefined]);
      assert.equal((await call('list_blocks', { doc_id: 'd-nope' })).error?.code, 'scope_not_found');
      assert.equal((await call('list_blocks', { section_paths: ['x'] })).error?.code, 'invalid_argument');
      const e = await call('list_blocks', { doc_id: docId('Sparse'), section_paths: ['Sparse > Empty'] });
      assert.deepEqual([e.total, e.empty_reason], [0, 'scope_empty']);
    });
    // Hundreds of calls: in-process only (the CLI variant covers the same payloads case by case above).
    if (inProcess) it('completeness: every section = its direct blocks ∪ its subsections, for every section of every document', async () => {
      for (const doc of snap.documents) {
        for (const s of doc.sections) {
          const whole = ((await call('list_blocks', { doc_id: doc.doc_id, section_paths: [s.path] })).blocks as Block[] | undefined) ?? [];
          const children = doc.sections.filter((c) => c.parent_path === s.path).map((c) => c.path);
          const direct = doc.blocks.filter((b) => b.section_path === s.path).map((b) => b.block_id);
          const viaChildren = children.length ? (((await call('list_blocks', { doc_id: doc.doc_id, section_paths: children })).blocks as Block[] | undefined) ?? []).map((b) => b.block_id) : [];
          const expected = doc.blocks.filter((b) => direct.includes(b.block_id) || viaChildren.includes(b.block_id)).map((b) => b.block_id);
          assert.deepEqual(whole.map((b) => b.block_id), expected, `${doc.title}: ${s.path}`);
          assert.equal(whole.length, s.subtree_blocks);
          assert.ok(whole.every((b) => isWithin(b.section_path, s.path)));
        }
      }
    });
  });

  describe('scan_term', () => {
    const independentCount = (term: string) => {
      const needle = term.trim().normalize('NFC').toLowerCase();
      let n = 0;
      for (const d of snap.documents) for (const b of d.blocks) n += b.text.normalize('NFC').toLowerCase().split(needle).length - 1;
      return n;
    };
    it('hit counts equal an independent count over the raw block texts, ordered by document then block', async () => {
      for (const term of ['cell', 'the', '汉朝', '计算属性', 'Vue', '。', ' light ']) {
        const p = await call('scan_term', { term });
        const hits = (p.hits as Array<{ doc_id: string; block_id: string; count: number; snippet: string }>) ?? [];
        assert.equal(p.total_count, independentCount(term), term);
        assert.equal(hits.reduce((n, h) => n + h.count, 0), independentCount(term));
        const order = hits.map((h) => {
          const d = snap.documents.findIndex((x) => x.doc_id === h.doc_id);
          return [d, snap.documents[d]!.blocks.findIndex((b) => b.block_id === h.block_id)] as const;
        });
        assert.deepEqual(order, [...order].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
        assert.ok(hits.every((h) => h.snippet.toLowerCase().includes(term.trim().toLowerCase())), term);
      }
    });
    it('folds NFC and case only: no stemming, synonyms or punctuation folding', async () => {
      const decomposed = await call('scan_term', { term: 'cafe\u0301' });
      assert.equal(decomposed.total_count, 3, 'café, CAFÉ and café');
      assert.equal((await call('scan_term', { term: 'v model' })).empty_reason, 'no_match');
      assert.equal((await call('scan_term', { term: 'Use a light-microscope' })).empty_reason, 'no_match', 'punctuation is not folded');
      assert.equal((await call('scan_term', { term: 'Use a light microscope' })).total_count, 1);
      assert.equal((await call('scan_term', { term: 'microscopes' })).empty_reason, 'no_match', 'no stemming');
    });
    it('count 0 is a legal empty result; a blank term, [] and unknown docs are errors', async () => {
      const p = await call('scan_term', { term: 'zzqxj' });
      assert.deepEqual([p.total_count, p.hits, p.empty_reason], [0, [], 'no_match']);
      assert.equal((await call('scan_term', { term: '  ' })).error?.code, 'invalid_argument');
      assert.equal((await call('scan_term', { term: 'a', doc_ids: [] })).error?.code, 'invalid_argument');
      assert.equal((await call('scan_term', { term: 'a', doc_ids: ['d-x'] })).error?.code, 'scope_not_found');
      const scoped = await call('scan_term', { term: 'cell', doc_ids: [docId('Cell Biology Notes')] });
      assert.ok((scoped.hits as Array<{ doc_id: string }>).every((h) => h.doc_id === docId('Cell Biology Notes')));
    });
  });

  it('every tool is deterministic to the byte', async () => {
    const inputs: Array<[ToolName, unknown]> = [
      ['list_documents', {}],
      ['get_outline', { doc_ids: snap.documents.map((d) => d.doc_id) }],
      ['search_blocks', { query: 'section cell 光合' }],
      ['list_blocks', { doc_id: docId('计算属性') }],
      ['scan_term', { term: 'e' }],
    ];
    for (const [name, input] of inputs) {
      const a: ToolPayload = await call(name, input);
      const b: ToolPayload = await call(name, input);
      assert.equal(JSON.stringify(a), JSON.stringify(b), name);
    }
  });
});
