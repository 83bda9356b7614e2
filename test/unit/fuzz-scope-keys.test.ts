import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DataDir } from '../../src/common/data-dir';
import { isWithin } from '../../src/index/blocks/section-path';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { addSources } from '../../src/index/sources/sources';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { type LoadedSnapshot, loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { runTool, toolScopeKey } from '../../src/tools/registry';
import { TOOL_NAMES, type ToolName, type ToolPayload } from '../../src/tools/tool';
import { fixture, tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { runs, trialsOf } from '../fuzz';

/**
 * The duplicate-scope key is exactly as strict as the tool (issue 31 item 2): two inputs share a key if
 * and only if the tool returns the same payload for both. Random inputs are random spellings of a pool
 * of requests whose payloads are pairwise different: white space inside and around strings, Unicode
 * composition, letter case, repeated and reordered ids and paths, absent against empty lists, a path
 * beside one of its own subsections, every document named, key order. Each pair is keyed on a real
 * keyword-only snapshot and run through the tool; the two equalities must agree.
 */
let snap: LoadedSnapshot;
type Input = Record<string, unknown>;

const nfd = (s: string) => s.normalize('NFD');
const nfc = (s: string) => s.normalize('NFC');

/** One way of respelling a request; `k` picks among the choices a spelling has. */
type Respell = (input: Input, k: number) => Input;

const mapStrings = (v: unknown, f: (s: string) => string): unknown => (typeof v === 'string' ? f(v) : Array.isArray(v) ? v.map((x) => mapStrings(x, f)) : v);
/** Applies `f` to one string field (picked by `k`) of the input, lists item by item. */
const onField =
  (f: (s: string, k: number) => string): Respell =>
  (input, k) => {
    const keys = Object.keys(input).filter((key) => input[key] !== undefined);
    if (!keys.length) return input;
    const key = keys[k % keys.length]!;
    return { ...input, [key]: mapStrings(input[key], (s) => f(s, k)) };
  };
const onList =
  (f: (xs: string[], k: number, field: string, input: Input) => string[] | undefined): Respell =>
  (input, k) => {
    const lists = Object.keys(input).filter((key) => Array.isArray(input[key]));
    if (!lists.length) return input;
    const key = lists[k % lists.length]!;
    return { ...input, [key]: f(input[key] as string[], k, key, input) };
  };

const RESPELL: Record<string, Respell> = {
  pad: onField((s, k) => [` ${s}`, `${s} `, `\t${s}\n`][k % 3]!),
  innerSpace: onField((s) => s.replace(/ /g, '  ')),
  punctuate: onField((s) => `${s}?`),
  decompose: onField((s) => nfd(s)),
  compose: onField((s) => nfc(s)),
  upper: onField((s) => s.toUpperCase()),
  lower: onField((s) => s.toLowerCase()),
  repeatItem: onList((xs, k) => (xs.length ? [...xs, xs[k % xs.length]!] : xs)),
  reverse: onList((xs) => [...xs].reverse()),
  emptyList: (input) => (input.section_paths === undefined && 'doc_id' in input ? { ...input, section_paths: [] } : input),
  dropEmptyList: (input) => (Array.isArray(input.section_paths) && input.section_paths.length === 0 ? { ...input, section_paths: undefined } : input),
  // A path beside one of its own subsections covers the same blocks.
  addSubsection: onList((xs, k, field, input) => {
    if (field !== 'section_paths' || !xs.length) return xs;
    const doc = snap.documents.find((d) => d.doc_id === input.doc_id);
    const inner = doc?.sections.filter((s) => xs.some((p) => s.path !== p && isWithin(s.path, p))) ?? [];
    return inner.length ? [...xs, inner[k % inner.length]!.path] : xs;
  }),
  // Every document named is the whole collection.
  allDocs: (input) => ('doc_ids' in input && !('query' in input && input.doc_ids === undefined) ? { ...input, doc_ids: snap.documents.map((d) => d.doc_id) } : input),
  reorderKeys: (input) => Object.fromEntries(Object.entries(input).reverse()),
};
const RESPELLINGS = Object.keys(RESPELL);

/**
 * Requests of each tool, spelled plainly, those with a payload an earlier one already has left out: the
 * property compares spellings of requests that differ. A request restricted to some documents finds its
 * term in other documents too, so naming every document is a different request on this collection.
 * (Two different requests whose hits merely coincide on some collection are not a repeat: the key is
 * parameter-level, information-gain seed §6; the model rates such a result NO_GAIN.)
 */
async function distinctPool(): Promise<Record<ToolName, Input[]>> {
  const all = candidates();
  const out = {} as Record<ToolName, Input[]>;
  for (const name of TOOL_NAMES) {
    const seen = new Set<string>();
    out[name] = [];
    for (const input of all[name]) {
      const p = strip(await runTool(name, input, { snapshot: snap }));
      if (!seen.has(p)) out[name].push(input);
      seen.add(p);
    }
  }
  return out;
}

function candidates(): Record<ToolName, Input[]> {
  const doc = (title: string) => snap.documents.find((d) => d.title === title)!;
  const cells = doc('Cell Biology Notes');
  const edges = snap.documents.find((d) => d.sections.some((s) => s.title === 'X >'))!;
  const history = doc('中国历史笔记');
  const paths = (d: typeof cells) => d.sections.filter((s) => s.subtree_blocks > 0).map((s) => s.path);
  return {
    list_documents: [{}, { title_contains: 'Cell' }, { title_contains: '历史' }, { title_contains: 'X' }, { source: 'nowhere' }],
    get_outline: [{ doc_ids: [cells.doc_id] }, { doc_ids: [cells.doc_id, edges.doc_id] }, { doc_ids: [edges.doc_id, cells.doc_id] }, { doc_ids: ['dnope'] }],
    search_blocks: [{ query: 'cell membrane' }, { query: 'Golgi apparatus' }, { query: 'café beans' }, { query: '张骞 出使' }, { query: 'cell 汉朝', doc_ids: [history.doc_id] }, { query: 'text under', doc_ids: [edges.doc_id] }, { query: 'cell', doc_ids: ['dnope'] }],
    list_blocks: [
      { doc_id: cells.doc_id },
      { doc_id: edges.doc_id },
      ...paths(edges).map((p) => ({ doc_id: edges.doc_id, section_paths: [p] })),
      ...paths(cells).slice(0, 4).map((p) => ({ doc_id: cells.doc_id, section_paths: [p] })),
      { doc_id: history.doc_id, section_paths: [paths(history)[1]!, paths(history)[2]!] },
      { doc_id: cells.doc_id, section_paths: ['No Such Section'] },
    ],
    scan_term: [{ term: 'cell' }, { term: 'Café' }, { term: 'the', doc_ids: [cells.doc_id] }, { term: 'text', doc_ids: [edges.doc_id] }, { term: '张骞' }, { term: 'zzqxj' }, { term: 'cell', doc_ids: ['dnope'] }],
  };
}

const strip = (p: ToolPayload) => JSON.stringify(p);

describe('fuzz: duplicate-scope keys', () => {
  before(async () => {
    const dir = new DataDir(tempDir());
    const extra = tempDir('docqa-scope-');
    fs.writeFileSync(path.join(extra, 'edges.md'), "# X\n\n## > Y\n\nText under X's child.\n\n# X >\n\n## Y\n\nText under the sibling's child.\n\n# Cafe\u0301 notes\n\nBeans are roasted. CAFÉ and café.\n");
    await addSources(dir, [fixture('markdown', 'cell-notes.md'), fixture('markdown', 'zh-history.md'), extra]);
    await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: { provider: 'none' }, embeddingApiKey: '', pool: createIngestPool(DEFAULT_INGEST_OPTIONS, null) });
    snap = (await loadActiveSnapshot(dir))!;
  });

  it('requests with different payloads have different keys; requests with equal payloads (a section without text of its own, and its only subsection) share one', async () => {
    const requests = await distinctPool();
    for (const [name, inputs] of Object.entries(requests) as Array<[ToolName, Input[]]>) {
      assert.ok(inputs.length >= 4, `${name}: ${inputs.length} distinct requests`);
      assert.equal(new Set(inputs.map((i) => toolScopeKey(name, i, snap))).size, inputs.length, name);
    }
    const edges = snap.documents.find((d) => d.sections.some((s) => s.title === 'X >'))!.doc_id;
    assert.equal(toolScopeKey('list_blocks', { doc_id: edges, section_paths: ['X'] }, snap), toolScopeKey('list_blocks', { doc_id: edges, section_paths: ['X > › Y'] }, snap));
  });

  it('two respellings share a key if and only if the tool answers them with the same payload', async () => {
    const requests = await distinctPool();
    const respelling = fc.array(fc.tuple(fc.constantFrom(...RESPELLINGS), fc.nat(8)), { maxLength: 3 });
    let same = 0;
    let different = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TOOL_NAMES), fc.nat(), fc.nat(), fc.boolean(), respelling, respelling, async (name, i, j, samePick, r1, r2) => {
        const list = requests[name];
        const spell = (input: Input, r: typeof r1) => r.reduce((x, [how, k]) => RESPELL[how]!(x, k), input);
        const a = spell(list[i % list.length]!, r1);
        const b = spell(list[(samePick ? i : j) % list.length]!, r2);
        const keysEqual = toolScopeKey(name, a, snap) === toolScopeKey(name, b, snap);
        const [pa, pb] = await Promise.all([runTool(name, a, { snapshot: snap }), runTool(name, b, { snapshot: snap })]);
        const payloadsEqual = strip(pa) === strip(pb);
        assert.equal(keysEqual, payloadsEqual, `${name} ${JSON.stringify(a)} / ${JSON.stringify(b)}: keys ${keysEqual ? 'equal' : 'differ'}, payloads ${payloadsEqual ? 'equal' : 'differ'}`);
        if (keysEqual) same++;
        else different++;
      }),
      runs(400),
    );
    // Both sides of the equivalence were tried, many times each.
    assert.ok(same > 50 && different > 50, `${same} equal, ${different} different`);
    recordTrials({ area: 'harness contract', fault: 'respelled tool requests (spaces, Unicode composition, case, repeated or reordered ids and paths, absent or empty lists, covered subsections): key equal iff payload equal', trials: trialsOf(400), outcome: 'the duplicate-scope key agreed with the payload every time' }, __filename);
  });
});
