import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DataDir } from '../../src/common/data-dir';
import { readVersioned } from '../../src/common/json-file';
import { CONVERSATION_FORMAT_VERSION } from '../../src/shared/conversation';
import { StoredConversation } from '../../src/app/conversations/conversation-migration';
import { EgressConsentV1File } from '../../src/app/upgrade/layout-migrations';
import { EvalRecord } from '../../src/shared/eval-record';
import { loadBundle } from '../../src/harness/prompt-bundle';
import { PromptState } from '../../src/harness/prompt-store';
import { DocumentsFile } from '../../src/index/sources/doc-registry';
import { SourcesFile } from '../../src/index/sources/sources';
import { ActivePointer } from '../../src/index/store/snapshot-manifest';
import { loadSnapshot, readManifest } from '../../src/index/store/snapshot-store';
import { readTrace } from '../../src/trace/trace-store';
import { runCli } from '../crash/crash-helpers';
import { FIXTURE_ROOT } from '../fixtures/make-datadir';
import { fixture, tempDir } from '../helpers';

/** The layout-1 data directory DocQA 0.1.0 wrote (test/fixtures/make-datadir.ts), and its documents. */
export const FIXTURE = fixture('datadir-v1');

/** A copy of the fixture in a fresh folder, its placeholder root replaced by that folder (text files only: the binary ones hold no paths). */
export function copyFixture(): { root: string; data: string; docs: string } {
  const root = tempDir('docqa-upgrade-');
  fs.cpSync(FIXTURE, root, { recursive: true });
  for (const rel of listTree(root).files) {
    const file = path.join(root, rel);
    const bytes = fs.readFileSync(file);
    if (!bytes.includes(0) && bytes.includes(FIXTURE_ROOT)) fs.writeFileSync(file, bytes.toString('utf8').split(FIXTURE_ROOT).join(root));
  }
  return { root, data: path.join(root, 'data'), docs: path.join(root, 'docs') };
}

/** Locks and their owner files come and go with every command; they hold no data. */
const TRANSIENT = /(^|\/)[^/]+\.lock(\.owner)?(\/|$)/;

/** Every file and folder under `root` (relative, '/'-separated, sorted), locks left out. */
export function listTree(root: string): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (TRANSIENT.test(r)) continue;
      if (e.isDirectory()) {
        dirs.push(r);
        walk(r);
      } else files.push(r);
    }
  };
  walk('');
  return { files: files.sort(), dirs: dirs.sort() };
}

export const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');

/** sha256 of every file under `root`. */
export function treeHashes(root: string): Map<string, string> {
  return new Map(listTree(root).files.map((f) => [f, sha256(fs.readFileSync(path.join(root, f)))]));
}

/** Files only layout 2 has: DocQA 0.1.0 never looks at them. */
export const LAYOUT2_ONLY = /^(layout\.json|egress-consent\.v2\.json|backups\/.*)$/;
/** Pins of requests in flight (removed once their process is gone); no format to read. */
const PINS = /^pins\//;

/**
 * Proves that DocQA 0.1.0 (layout 1) still reads every file of its layout in `data`: each is parsed
 * with that release's reader — the same schema and function, for every format this change left alone,
 * and the format-1 consent schema kept in layout-migrations.ts — at that release's format versions
 * (the schemas pin them with literals). A file of a kind it does not know fails the check, so a new
 * kind cannot slip past. Returns how many files were read.
 */
export async function assertOldReleaseReads(data: string): Promise<number> {
  const dir = new DataDir(data);
  const { files } = listTree(data);
  let read = 0;
  const snapshotsLoaded = new Set<string>();
  for (const rel of files) {
    const file = path.join(data, rel);
    if (LAYOUT2_ONLY.test(rel) || PINS.test(rel)) continue;
    let m: RegExpMatchArray | null;
    if (rel === 'sources.json') assert.ok(await readVersioned(file, 1, SourcesFile));
    else if (rel === 'documents.json') assert.ok(await readVersioned(file, 1, DocumentsFile));
    else if (rel === 'active.json') assert.ok(await readVersioned(file, 1, ActivePointer));
    else if (rel === 'egress-consent.json') assert.ok(await readVersioned(file, 1, EgressConsentV1File));
    else if (rel === 'prompts/state.json') assert.ok(await readVersioned(file, 1, PromptState));
    else if ((m = rel.match(/^prompts\/([^/]+)\/(bundle\.json|[^/]+\.md)$/))) await loadBundle(path.join(data, 'prompts', m[1]!));
    else if (/^evals\/[^/]+\.json$/.test(rel)) assert.ok(await readVersioned(file, 1, EvalRecord));
    else if (/^conversations\/[^/]+\/[^/]+\.json$/.test(rel)) assert.ok(await readVersioned(file, CONVERSATION_FORMAT_VERSION, StoredConversation));
    else if ((m = rel.match(/^traces\/([^/]+)\/(trace\.json|records\.jsonl)$/))) assert.ok((await readTrace(dir, m[1]!)).meta);
    else if ((m = rel.match(/^snapshots\/([^/]+)\/(manifest\.json|segments\/[^/]+\/(documents\.json|keyword\.pack|vectors\.f32))$/))) {
      // The whole snapshot through its loader: manifest, each segment's documents, keyword pack and vectors.
      if (!snapshotsLoaded.has(m[1]!)) {
        assert.equal((await readManifest(dir, m[1]!))?.formatVersion, 2);
        await loadSnapshot(dir, m[1]!);
        snapshotsLoaded.add(m[1]!);
      }
    } else if (/^embeddings\/[0-9a-f]{16}\/meta\.json$/.test(rel)) assert.equal((JSON.parse(fs.readFileSync(file, 'utf8')) as { formatVersion: number }).formatVersion, 2);
    else if (/^embeddings\/[0-9a-f]{16}\/seg-[^/]+\.dqe$/.test(rel)) {
      const head = fs.readFileSync(file).subarray(0, 8);
      assert.deepEqual([head.toString('latin1', 0, 4), head.readUInt32LE(4)], ['DQEC', 2], rel);
    } else assert.fail(`${rel}: a file DocQA 0.1.0 does not know`);
    read++;
  }
  return read;
}

/** `docqa data status --json` on a copy of the fixture: the command that opens (so migrates) and reads nothing else. */
export const statusEnv = (data: string) => ({ PATH: process.env.PATH ?? '', HOME: path.dirname(data), DOCQA_HOME: data });

/**
 * Opens a fresh copy of the fixture with the disk refusing writes after 0, stride, 2·stride, … writes
 * (test/crash/fs-faults.mjs), until a moment late enough lets the migration finish. ENOSPC and EIO:
 * each failure exits 1 with the error and leaves every file and folder as it was. EROFS refuses the
 * clean-up too: the old files are unchanged, the layout is still 1, and the next open (writable again)
 * migrates and sweeps what was left. Returns how many moments failed.
 */
export async function migrateUnderFault(code: 'ENOSPC' | 'EIO' | 'EROFS', stride: number): Promise<number> {
  let failed = 0;
  for (let after = 0; ; after += stride) {
    assert.ok(after < 200, 'the migration never succeeded');
    const { data } = copyFixture();
    const tree = listTree(data);
    const hashes = treeHashes(data);
    const r = await runCli(statusEnv(data), ['data', 'status', '--json'], { preload: true, extraEnv: { DOCQA_FS_FAULT: code, DOCQA_FS_FAULT_UNDER: data, DOCQA_FS_FAULT_AFTER: String(after) } });
    if (r.code === 0) {
      assert.equal((JSON.parse(r.stdout) as { layout: number }).layout, 2);
      return failed;
    }
    failed++;
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^docqa: (cannot upgrade the data directory .* from layout 1 to 2: .*${code}.*; nothing was changed|cannot write to data directory)`), r.stderr);
    if (code !== 'EROFS') {
      assert.deepEqual(listTree(data), tree, `${code} after ${after} writes: files or folders added or removed`);
      assert.deepEqual(treeHashes(data), hashes, `${code} after ${after} writes: a file changed`);
      continue;
    }
    const now = treeHashes(data);
    for (const [rel, hash] of hashes) assert.equal(now.get(rel), hash, `EROFS after ${after}: ${rel} changed`);
    assert.ok(!now.has('layout.json'), `EROFS after ${after}: switched to layout 2 although the migration failed`);
    await assertNextOpenCompletes(data);
  }
}

/** After a failed or killed migration: a clean open migrates, leaves no half-made backup, and 0.1.0 still reads its files. */
export async function assertNextOpenCompletes(data: string): Promise<void> {
  const r = await runCli(statusEnv(data), ['data', 'status', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const status = JSON.parse(r.stdout) as { layout: number; backups: unknown[] };
  assert.equal(status.layout, 2);
  assert.ok(status.backups.length >= 1);
  assert.ok(!listTree(data).dirs.some((d) => d.endsWith('.partial')), 'a half-made backup was left');
  await assertOldReleaseReads(data);
}
