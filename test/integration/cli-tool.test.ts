import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fixture, tempDir } from '../helpers';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { makeCli } from './cli';
import { z } from 'zod';
import { TOOLS, toolJsonSchema } from '../../src/tools/registry';

describe('docqa tool', () => {
  it('--help lists every tool with its input fields, their types and examples, generated from the schemas (a script need not learn doc_ids from an error)', () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    const help = cli.run(['tool', '--help']);
    assert.equal(help.code, 0, help.stderr);
    for (const tool of TOOLS) {
      const schema = z.toJSONSchema(tool.input) as { properties: Record<string, unknown>; required?: string[]; examples: unknown[] };
      const section = help.stdout.slice(help.stdout.indexOf(`\n${tool.name} — `));
      assert.ok(section.length > 1, `${tool.name} is listed`);
      const own = section.split('\n\n')[0]!;
      for (const field of Object.keys(schema.properties)) assert.match(own, new RegExp(`\\n  ${field} +\\S.*, (required|optional)`), `${tool.name}.${field}`);
      assert.ok(schema.examples.length > 0, `${tool.name} has an example`);
      for (const example of schema.examples) {
        assert.ok(tool.input.safeParse(example).success, `${tool.name}'s example is a valid input`);
        assert.ok(own.includes(`docqa tool ${tool.name} '${JSON.stringify(example)}'`));
      }
    }
    assert.match(help.stdout, /\n {2}doc_ids +string \(not empty\)\[\] \(1 or more\), required — one or more doc_ids/);
    assert.match(help.stdout, /\n {2}lang +"zh" \| "en" \| "ja" \| "mixed" \| "und", optional/);
    // The model's schema is the same, without the examples (its prompt did not grow).
    assert.equal(toolJsonSchema(TOOLS[0]!).examples, undefined);
  });

  it('prints payloads as JSON; an error payload still exits 0; usage errors exit 2', async () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    const none = cli.run(['tool', 'list_documents']);
    assert.equal(none.code, 0);
    assert.equal((JSON.parse(none.stdout) as { error: { code: string } }).error.code, 'collection_unavailable');
    cli.json(['sources', 'add', fixture('markdown', 'zh-history.md'), '--json']);
    assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
    const docs = cli.json<{ documents: Array<{ doc_id: string }> }>(['tool', 'list_documents', '{}']);
    const id = docs.documents[0]!.doc_id;
    const blocks = cli.json<{ total: number; blocks: Array<{ ref: string }> }>(['tool', 'list_blocks', JSON.stringify({ doc_id: id, section_paths: ['中国历史笔记 > 汉朝 (2)'] })]);
    assert.equal(blocks.total, 2);
    const bad = cli.run(['tool', 'list_blocks', JSON.stringify({ doc_id: id, section_paths: ['nope'] })]);
    assert.equal(bad.code, 0);
    assert.equal((JSON.parse(bad.stdout) as { error: { code: string } }).error.code, 'scope_not_found');
    assert.equal(cli.run(['tool', 'grep', '{}']).code, 2);
    const notJson = cli.run(['tool', 'scan_term', '{term:']);
    assert.equal(notJson.code, 2);
    assert.match(notJson.stderr, /not valid JSON/);
  });

  it('--snapshot reads an older snapshot after a newer one was activated', async () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    const dir = tempDir();
    const file = path.join(dir, 'n.md');
    fs.writeFileSync(file, '# N\n\nThe old wording about osmosis.\n');
    cli.json(['sources', 'add', dir, '--json']);
    const first = JSON.parse((await cli.runAsync(['index', '--yes', '--json'])).stdout) as { snapshot_id: string };
    fs.writeFileSync(file, '# N\n\nThe new wording about diffusion.\n');
    await cli.runAsync(['index', '--yes']);
    const now = cli.json<{ total_count: number }>(['tool', 'scan_term', '{"term":"osmosis"}']);
    assert.equal(now.total_count, 0);
    const then = cli.json<{ total_count: number }>(['tool', 'scan_term', '{"term":"osmosis"}', '--snapshot', first.snapshot_id]);
    assert.equal(then.total_count, 1);
  });

  it('keyword-only search needs no endpoint and says so; a snapshot with embeddings needs its endpoint', async () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none' });
    cli.json(['sources', 'add', fixture('markdown', 'zh-history.md'), '--json']);
    await cli.runAsync(['index', '--yes']);
    const p = cli.json<{ mode: string; blocks: unknown[] }>(['tool', 'search_blocks', '{"query":"张骞"}']);
    assert.equal(p.mode, 'keyword_only');
    assert.equal(p.blocks.length, 1);

    const server = await new FakeOpenAIServer().start();
    try {
      const env = { DOCQA_EMBEDDING_PROVIDER: 'openai-compatible', DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'fake', DOCQA_EMBEDDING_DIMENSIONS: '16' };
      assert.equal((await cli.runAsync(['index', '--yes'], env)).code, 0);
      const hybrid = JSON.parse((await cli.runAsync(['tool', 'search_blocks', '{"query":"张骞"}'], env)).stdout) as { mode: string };
      assert.equal(hybrid.mode, 'hybrid');
      const missing = JSON.parse((await cli.runAsync(['tool', 'search_blocks', '{"query":"张骞"}'])).stdout) as { error: { code: string } };
      assert.equal(missing.error.code, 'upstream_unavailable');
    } finally {
      await server.close();
    }
  });
});
