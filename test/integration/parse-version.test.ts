import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { PARSE_VERSION } from '../../src/index/blocks/parse-version';
import { loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { runTool } from '../../src/tools/registry';
import { runCli } from '../crash/crash-helpers';
import { tempDir } from '../helpers';
import { copyFixture } from './datadir-fixture';

/**
 * Section paths changed with parse version 2 (a title's `>` written `›`; link lists as blocks of their
 * own). A snapshot DocQA 0.1.0 built (test/fixtures/datadir-v1, parse version 1) still loads and answers
 * as it was built; the next build does not take over its parse results: it parses every document again
 * and says why, then later builds reuse as before.
 */
describe('parse versions: old snapshots load and answer; the next build parses again, saying why', () => {
  it('a snapshot of parse version 1 answers with its own paths; the next build re-parses every document with the reason in the manifest and the output; the one after reuses them', async () => {
    const { data } = copyFixture();
    const old = (await loadActiveSnapshot(new DataDir(data)))!;
    assert.equal(old.manifest.parse_version, 1, 'a manifest without the field is version 1');
    const history = old.documents.find((d) => d.title === '中国历史笔记')!;
    const outline = await runTool('get_outline', { doc_ids: [history.doc_id] }, { snapshot: old });
    const paths = (outline.documents as Array<{ sections: Array<{ path: string }> }>)[0]!.sections.map((s) => s.path);
    assert.ok(paths.includes('中国历史笔记 > 汉朝 (2) > 人物 › 张骞'), paths.join(' | '));
    const listed = await runTool('list_blocks', { doc_id: history.doc_id, section_paths: ['中国历史笔记 > 汉朝 (2)'] }, { snapshot: old });
    assert.deepEqual((listed.blocks as Array<{ section_path: string }>).map((b) => b.section_path).at(-1), '中国历史笔记 > 汉朝 (2) > 人物 › 张骞');

    const env = { PATH: process.env.PATH ?? '', HOME: tempDir('docqa-parse-home-'), DOCQA_HOME: data, DOCQA_EMBEDDING_PROVIDER: 'none' };
    const first = await runCli(env, ['index', '--json']);
    assert.equal(first.code, 0, first.stderr);
    const built = JSON.parse(first.stdout) as { reused_documents: number; documents: number; reparse_reason: string | null };
    assert.equal(built.reused_documents, 0);
    assert.match(built.reparse_reason!, new RegExp(`parse version 1, now ${PARSE_VERSION}.*every document is parsed again`));
    const text = await runCli(env, ['index']);
    assert.equal(text.code, 0, text.stderr);
    // Built on a snapshot of this version: nothing to parse again, every unchanged document reused.
    assert.doesNotMatch(text.stdout, /parsed again/);
    assert.match(text.stdout, new RegExp(`${built.documents} documents \\(${built.documents} unchanged\\)`));
    const now = (await loadActiveSnapshot(new DataDir(data)))!;
    assert.deepEqual([now.manifest.parse_version, now.manifest.reparse_reason], [PARSE_VERSION, null]);
  });
});
