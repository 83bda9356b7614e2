import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ConversationStore } from '../../src/app/conversations/conversation-store';
import { DataDir } from '../../src/common/data-dir';
import { StoreError } from '../../src/common/errors';
import { loadBundle } from '../../src/harness/prompt-bundle';
import { loadPromptState, newBundle, promoteBundle } from '../../src/harness/prompt-store';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { loadRegistry } from '../../src/index/sources/doc-registry';
import { addSources, loadSources } from '../../src/index/sources/sources';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { consentFile, endpointOrigin, readConsents, recordConsent } from '../../src/index/store/egress-consent';
import { readSegmentDocuments } from '../../src/index/store/segment-store';
import { readActiveId, readManifest } from '../../src/index/store/snapshot-store';
import { readTrace, stampedId } from '../../src/trace/trace-store';
import { TraceWriter } from '../../src/trace/trace-writer';
import { Redactor } from '../../src/common/redact';
import { PLACEHOLDER_MANIFEST, fixture, tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { assertPrototypesClean, damagedBytes, mutatedJson, runs, trialsOf } from '../fuzz';

/**
 * Property tests of the persisted JSON files (issue 24 item 6), each through its real reader: a file
 * truncated, flipped or random, valid JSON mutated (wrong types, missing or extra members, `__proto__`
 * keys), or from a future DocQA. The reader returns a value its schema accepts or throws a StoreError
 * with a documented code; a future version is `store_future_version`, and neither the read nor the next
 * write changes the file's bytes. A file written by its writer reads back as written.
 */
const CODES = new Set(['store_corrupt', 'store_future_version', 'store_old_version']);

interface Store {
  name: string;
  file: (dir: DataDir) => string;
  read: (dir: DataDir) => Promise<unknown>;
  /** A writer that reads the file first: it must refuse a future version and leave it as it is. */
  write?: (dir: DataDir) => Promise<unknown>;
}

let dir: DataDir;
let snapshotId: string;
let segmentFolder: string;
let conversationId: string;
let bundleId: string;
const RUN_ID = stampedId('r', new Date(0));
const notes = tempDir('docqa-fuzz-notes-');
const conversations = (d: DataDir) => new ConversationStore(d, 'w0123456789abcdef');

const STORES: Store[] = [
  { name: 'sources registry', file: (d) => d.sourcesFile, read: (d) => loadSources(d), write: (d) => addSources(d, [path.join(notes, 'b.md')]) },
  { name: 'doc registry', file: (d) => d.documentsFile, read: (d) => loadRegistry(d) },
  { name: 'egress consent', file: (d) => consentFile(d), read: (d) => readConsents(d), write: (d) => recordConsent(d, { host: 'h:443', origin: endpointOrigin('https://h'), model: 'm', sources: [], files: 0, blocks: 0, tokens: 0, skipped: [] }, new Date(0)) },
  { name: 'snapshot manifest', file: (d) => path.join(d.snapshotDir(snapshotId), 'manifest.json'), read: (d) => readManifest(d, snapshotId) },
  { name: 'active snapshot pointer', file: (d) => d.activeFile, read: (d) => readActiveId(d) },
  { name: 'format-1 segment (documents.json)', file: () => path.join(segmentFolder, 'documents.json'), read: () => readSegmentDocuments(segmentFolder) },
  { name: 'conversation', file: (d) => path.join(conversations(d).folder, `${conversationId}.json`), read: (d) => conversations(d).get(conversationId), write: (d) => conversations(d).rename(conversationId, 'renamed') },
  { name: 'trace meta', file: (d) => path.join(d.traceDir(RUN_ID), 'trace.json'), read: async (d) => (await readTrace(d, RUN_ID)).meta },
  { name: 'prompt store state', file: (d) => path.join(d.promptsDir, 'state.json'), read: (d) => loadPromptState(d), write: (d) => promoteBundle(d, bundleId) },
  { name: 'prompt bundle', file: (d) => path.join(d.promptsDir, bundleId, 'bundle.json'), read: (d) => loadBundle(path.join(d.promptsDir, bundleId)) },
];

/** The reader's outcome: a value, or a StoreError with a documented code; anything else fails the test. */
async function outcome(store: Store): Promise<{ ok: true } | { ok: false; code: string }> {
  try {
    await store.read(dir);
    return { ok: true };
  } catch (err) {
    assert.ok(err instanceof StoreError, `${store.name}: threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    assert.ok(CODES.has(err.code), `${store.name}: code ${err.code}`);
    return { ok: false, code: err.code };
  }
}

describe('fuzz: persisted JSON files', () => {
  const originals = new Map<string, Buffer>();
  before(async () => {
    // A data directory with every kind of file, written by the real writers, then copied: a path this
    // process wrote is read from memory by the registry, and each read here must come from the disk.
    const seed = new DataDir(tempDir());
    fs.writeFileSync(path.join(notes, 'a.md'), '# Cells\n\nThe membrane controls what enters.\n');
    fs.writeFileSync(path.join(notes, 'b.md'), '# Other\n\nMore text.\n');
    await addSources(seed, [path.join(notes, 'a.md')]);
    await buildSnapshot(seed, { ingest: DEFAULT_INGEST_OPTIONS, embedding: { provider: 'none' }, embeddingApiKey: '', pool: createIngestPool(DEFAULT_INGEST_OPTIONS, null) });
    await recordConsent(seed, { host: 'api.example.com:443', origin: endpointOrigin('https://api.example.com'), model: 'emb', sources: [{ id: 's1', label: 'notes', path: notes, files: 1, blocks: 1, tokens: 5 }], files: 1, blocks: 1, tokens: 5, skipped: [] }, new Date(0));
    conversationId = (await conversations(seed).create({ title: 'A title' })).id;
    const w = new TraceWriter(RUN_ID, seed.traceDir(RUN_ID), new Redactor());
    await w.close({ trace_id: '0'.repeat(32), mode: 'full', started_at: '2026-11-30T00:00:00.000Z', question: 'q', manifest: PLACEHOLDER_MANIFEST, release: { status: 'SUCCESS', reason: null }, stop_reason: null, counts: {}, tokens: { prompt: 0, completion: 0, embedding: 0 } });
    bundleId = (await newBundle(seed, 'baseline-en')).id;
    await promoteBundle(seed, bundleId);
    dir = new DataDir(tempDir());
    fs.cpSync(seed.root, dir.root, { recursive: true });
    snapshotId = (await readActiveId(dir))!;
    // documents.json is a format-1 segment's (DocQA 0.1.0 wrote them; still read): one from the fixture.
    const old = fixture('datadir-v1', 'data', 'snapshots');
    const snap = path.join(old, fs.readdirSync(old).sort()[0]!, 'segments');
    segmentFolder = path.join(dir.root, 'format-1-segment');
    fs.cpSync(path.join(snap, fs.readdirSync(snap)[0]!), segmentFolder, { recursive: true });
    for (const s of STORES) originals.set(s.name, fs.readFileSync(s.file(dir)));
  });
  after(assertPrototypesClean);

  const restore = (s: Store) => fs.writeFileSync(s.file(dir), originals.get(s.name)!);

  it('round trip: every file as its writer left it reads back, and reads the same twice', async () => {
    for (const s of STORES) {
      restore(s);
      assert.deepEqual(await outcome(s), { ok: true }, s.name);
      assert.deepEqual(await s.read(dir), await s.read(dir), s.name);
    }
    recordTrials({ area: 'fuzzing', fault: 'persisted JSON: round trip of each writer’s file (10 formats)', trials: STORES.length, outcome: 'read back as written' }, __filename);
  });

  for (const s of STORES) {
    it(`${s.name}: truncated, flipped or random bytes are store_corrupt (or still valid), never another error`, async () => {
      await fc.assert(
        fc.asyncProperty(damagedBytes(originals.get(s.name)!), async (bytes) => {
          fs.writeFileSync(s.file(dir), bytes);
          const r = await outcome(s);
          if (!r.ok) assert.notEqual(r.code, 'store_old_version');
        }),
        runs(60),
      );
      restore(s);
      recordTrials({ area: 'fuzzing', fault: `${s.name}: truncated, flipped and random bytes`, trials: trialsOf(60), outcome: 'documented error store_corrupt or a valid read; no crash' }, __filename);
    });

    it(`${s.name}: valid JSON mutated (wrong types, members missing or added, __proto__ keys) is read or refused with a documented code`, async () => {
      const sample = JSON.parse(originals.get(s.name)!.toString('utf8')) as unknown;
      await fc.assert(
        fc.asyncProperty(mutatedJson(sample), async (json) => {
          fs.writeFileSync(s.file(dir), json);
          await outcome(s);
          assertPrototypesClean();
        }),
        runs(80),
      );
      restore(s);
      recordTrials({ area: 'fuzzing', fault: `${s.name}: mutated JSON and __proto__ keys`, trials: trialsOf(80), outcome: 'documented error store_corrupt or a valid read; no crash; no pollution' }, __filename);
    });

    it(`${s.name}: a future formatVersion is store_future_version, and the file is left untouched${s.write ? ' by the next write too' : ''}`, async () => {
      const sample = JSON.parse(originals.get(s.name)!.toString('utf8')) as { formatVersion: number };
      const future = fc.oneof(fc.integer({ min: sample.formatVersion + 1, max: 1_000_000 }).map(String), fc.constantFrom('1e400', '9007199254740993', `${sample.formatVersion + 1}.5`));
      await fc.assert(
        fc.asyncProperty(future, fc.boolean(), async (version, extra) => {
          const json = JSON.stringify({ ...sample, formatVersion: 0, ...(extra ? { field_from_the_future: { x: 1 } } : {}) }).replace('"formatVersion":0', `"formatVersion":${version}`);
          fs.writeFileSync(s.file(dir), json);
          assert.deepEqual(await outcome(s), { ok: false, code: 'store_future_version' });
          if (s.write) await assert.rejects(s.write(dir), (err: unknown) => err instanceof StoreError && err.code === 'store_future_version');
          assert.equal(fs.readFileSync(s.file(dir), 'utf8'), json, 'the future file is left as it was');
        }),
        runs(s.write ? 15 : 25),
      );
      restore(s);
      recordTrials({ area: 'fuzzing', fault: `${s.name}: a future formatVersion`, trials: trialsOf(s.write ? 15 : 25), outcome: 'documented error store_future_version; file untouched' }, __filename);
    });
  }
});
