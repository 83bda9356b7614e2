import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { fixture, tempDir } from '../helpers';
import { makeCli } from './cli';

const systemOf = (body: Record<string, unknown>) => (body.messages as Array<{ content: string }>)[0]!.content;

describe('prompt bundles and evaluations', () => {
  let server: FakeOpenAIServer;
  let cli: ReturnType<typeof makeCli>;
  before(async () => {
    server = await new FakeOpenAIServer().start();
    cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'none', DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: 'sk-test-eval-000000' });
    cli.json(['sources', 'add', fixture('pdf', 'photosynthesis-en.pdf'), '--json']);
    assert.equal((await cli.runAsync(['index', '--yes'])).code, 0);
  });
  after(async () => {
    assert.deepEqual(server.scriptErrors, []);
    await server.close();
  });

  interface Listing {
    id: string;
    origin: string;
    frozen: boolean;
    active: boolean;
    hash: string;
    parent: string | null;
    path: string;
  }

  it('baselines are listed read-only; new copies them with the same content hash; promote, rollback, and a frozen bundle cannot change', async () => {
    const list = cli.json<Listing[]>(['prompts', 'list', '--json']);
    const base = list.find((b) => b.id === 'baseline-en')!;
    assert.deepEqual([base.origin, base.frozen], ['baseline', true]);
    assert.ok(list.some((b) => b.id === 'baseline-zh'));

    assert.match(cli.run(['prompts', 'new', '--from', 'baseline-en']).stdout, /created baseline-en-exp1 from baseline-en/);
    const exp = cli.json<Listing[]>(['prompts', 'list', '--json']).find((b) => b.id === 'baseline-en-exp1')!;
    assert.deepEqual([exp.origin, exp.frozen, exp.parent, exp.hash], ['experimental', false, 'baseline-en', base.hash], 'content hash is identity: an unedited copy hashes like its source');
    const clash = cli.run(['prompts', 'new', '--from', 'baseline-en', '--id', 'baseline-zh']);
    assert.equal(clash.code, 1);
    assert.match(clash.stderr, /"baseline-zh" already exists/);

    // An edited bundle, promoted: `ask` uses it; rollback restores the baseline.
    cli.run(['prompts', 'new', '--from', 'baseline-en', '--id', 'terse']);
    const terse = cli.json<Listing[]>(['prompts', 'list', '--json']).find((b) => b.id === 'terse')!;
    const template = path.join(terse.path, 'system.md');
    fs.appendFileSync(template, '\nAnswer in one sentence.\n');
    assert.equal(cli.run(['prompts', 'promote', 'terse']).code, 0);
    const seen: boolean[] = [];
    server.scriptChat((body) => {
      seen.push(systemOf(body).includes('Answer in one sentence.'));
      return 'Thought: ok.\nAction: Finish[Light.]';
    });
    assert.equal((await cli.runAsync(['ask', 'What drives photosynthesis?'])).code, 0);
    const promoted = cli.json<Listing[]>(['prompts', 'list', '--json']).find((b) => b.id === 'terse')!;
    assert.deepEqual([promoted.active, promoted.frozen], [true, true]);
    assert.notEqual(promoted.hash, base.hash);

    // Frozen means frozen: an edit makes the bundle unusable rather than silently different.
    fs.appendFileSync(template, 'And be polite.\n');
    const changed = await cli.runAsync(['ask', 'What drives photosynthesis?']);
    assert.equal(changed.code, 1);
    assert.match(changed.stderr, /prompt bundle terse was frozen with content [0-9a-f]{12} but now hashes to [0-9a-f]{12}/);

    assert.match(cli.run(['prompts', 'rollback']).stdout, /release baseline/);
    server.scriptChat((body) => {
      seen.push(systemOf(body).includes('Answer in one sentence.'));
      return 'Thought: ok.\nAction: Finish[Light.]';
    });
    assert.equal((await cli.runAsync(['ask', 'What drives photosynthesis?'])).code, 0);
    assert.deepEqual(seen, [true, false]);
    const none = cli.run(['prompts', 'rollback']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /nothing to roll back/);

    // A template without a placeholder is refused before it can be used.
    cli.run(['prompts', 'new', '--from', 'baseline-en', '--id', 'broken']);
    fs.writeFileSync(path.join(cli.store, 'prompts', 'broken', 'system.md'), 'no placeholders at all');
    const bad = cli.run(['prompts', 'promote', 'broken']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /system\.md lacks \{tools\}/);
  });

  it('eval run --repeat 5 reports pass rate, failure types and the case that flips; eval diff compares two evaluations', async () => {
    const goldset = path.join(tempDir(), 'gold.jsonl');
    // A block is citable when its full text reached the model (search_blocks), not from a scan_term snippet.
    const found = JSON.parse((await cli.runAsync(['tool', 'search_blocks', '{"query": "Calvin"}'])).stdout) as { blocks: Array<{ ref: string }> };
    const ref = found.blocks[0]!.ref;
    fs.writeFileSync(
      goldset,
      [
        { id: 'calvin', question: 'What makes sugar?', expect: { status: 'SUCCESS', cite: [ref], contains: ['Calvin'], tools: ['search_blocks'] } },
        { id: 'pigment', question: 'Which pigment absorbs light?', expect: { status: 'SUCCESS', contains: ['chlorophyll'], not_contains: ['I do not know'] } },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n'),
    );
    const calvinRun = () => [
      'Thought: search.\nAction: search_blocks[{"input": {"query": "Calvin"}}]',
      (body: Record<string, unknown>) => {
        const r = /"ref":"([^"]+)"/.exec(systemOf(body).slice(systemOf(body).lastIndexOf('Observation: ')))![1]!;
        return `Thought: enough.\nAction: Finish[The Calvin cycle makes sugar【来源:${r}】.]`;
      },
    ];
    const script = (pigmentAnswers: string[]) => {
      for (let i = 0; i < 5; i++) server.scriptChat(...calvinRun());
      for (const a of pigmentAnswers) server.scriptChat(`Thought: known.\nAction: Finish[${a}]`);
    };
    script(['Chlorophyll absorbs light.', 'I do not know.', 'Chlorophyll absorbs light.', 'I do not know.', 'Chlorophyll absorbs light.']);
    const r = await cli.runAsync(['eval', 'run', goldset, '--repeat', '5', '--prompt', 'baseline-en-exp1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^PASS calvin {2}5\/5$/m);
    assert.match(r.stdout, /^FLIP pigment {2}3\/5 {2}missing_text: chlorophyll; forbidden_text: I do not know$/m);
    assert.match(r.stdout, /^pass rate 8\/10 \(80\.0%\)$/m);
    assert.match(r.stdout, /^failures: missing_text 2, forbidden_text 2$/m);
    assert.match(r.stdout, /^flipping between repeats: pigment$/m);
    const a = /^saved (e\S+)/m.exec(r.stdout)![1]!;
    // The bundle an evaluation used is frozen.
    assert.equal(cli.json<Listing[]>(['prompts', 'list', '--json']).find((b) => b.id === 'baseline-en-exp1')!.frozen, true);
    // Each run left a trace.
    assert.equal(cli.json<unknown[]>(['trace', 'list', '--json']).length >= 10, true);

    script(Array(5).fill('Chlorophyll absorbs light.'));
    const r2 = JSON.parse((await cli.runAsync(['eval', 'run', goldset, '--repeat', '5', '--json'])).stdout) as { eval_id: string; summary: { pass_rate: number; flipping: string[] }; manifest: { prompt_bundle: { id: string } } };
    assert.deepEqual([r2.summary.pass_rate, r2.summary.flipping, r2.manifest.prompt_bundle.id], [1, [], 'baseline-en']);
    const d = cli.json<{ pass_rate: { delta: number }; cases: Array<{ id: string; change: string; a: string; b: string }>; manifest_changes: Array<{ field: string }> }>(['eval', 'diff', a, r2.eval_id, '--json']);
    assert.ok(Math.abs(d.pass_rate.delta - 0.2) < 1e-9);
    assert.deepEqual(d.cases, [
      { id: 'calvin', a: '5/5', b: '5/5', change: 'same' },
      { id: 'pigment', a: '3/5', b: '5/5', change: 'improved' },
    ]);
    // Same content, different bundle: the ids differ, the content hash does not, and neither does the config otherwise.
    assert.deepEqual(d.manifest_changes.map((m) => m.field), ['config_hash', 'prompt_bundle.id', 'prompt_bundle.parent']);
    assert.match(cli.run(['eval', 'diff', a, r2.eval_id]).stdout, /pass rate 80\.0% → 100\.0% \(\+20\.0 points\)\n {2}improved {2}pigment {2}3\/5 → 5\/5/);

    // A question carrying the chat key (pasted by mistake) is redacted in the saved evaluation and its traces.
    const keyed = path.join(tempDir(), 'keyed.jsonl');
    fs.writeFileSync(keyed, `${JSON.stringify({ id: 'pasted', question: 'Is sk-test-eval-000000 valid?', expect: { status: 'SUCCESS' } })}\n`);
    server.scriptChat('Thought: no.\nAction: Finish[I cannot check keys.]');
    const k = await cli.runAsync(['eval', 'run', keyed]);
    assert.equal(k.code, 0, k.stderr);
    for (const f of fs.readdirSync(cli.store, { recursive: true }) as string[]) {
      const p = path.join(cli.store, f);
      if (fs.statSync(p).isFile()) assert.ok(!fs.readFileSync(p).includes('sk-test-eval-000000'), `${f} contains the key`);
    }

    const bad = path.join(tempDir(), 'bad.jsonl');
    fs.writeFileSync(bad, '{"id": "x", "question": "q", "expect": {"status": "MAYBE"}}\n');
    const e = cli.run(['eval', 'run', bad]);
    assert.equal(e.code, 1);
    assert.match(e.stderr, /bad\.jsonl line 1: expect\.status/);
  });
});
