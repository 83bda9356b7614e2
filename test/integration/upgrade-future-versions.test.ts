import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { FIXTURE_PORT, FIXTURE_WORKSPACE } from '../fixtures/make-datadir';
import { tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { runCli } from '../crash/crash-helpers';
import { copyFixture, statusEnv } from './datadir-fixture';

/**
 * A file of each persisted kind, as a newer DocQA would write it (a higher formatVersion, or a higher
 * layout), in an upgraded copy of the fixture: the commands that read or write it refuse with a message
 * naming the file and saying to upgrade DocQA, and afterwards its bytes are as they were — no command
 * overwrote it.
 */
const Q = 'What does the cell membrane do?';

/** formatVersion N → 9 in a JSON file (indented or compact). */
const bumpJson = (key = 'formatVersion') => (b: Buffer) => {
  const data = JSON.parse(b.toString('utf8')) as Record<string, unknown>;
  data[key] = 9;
  return Buffer.from(JSON.stringify(data, null, 2));
};

interface Kind {
  name: string;
  /** The file, relative to the data directory (found in it when a function). */
  file: string | ((data: string) => string);
  bump: (b: Buffer) => Buffer;
  /** The first is refused; the others may or may not be, but must not change the file either. */
  commands: string[][];
  /** build-state.json exists only while a build runs: the test writes one. */
  create?: object;
  /** Not refused but skipped (a cache entry), and left as it is. */
  skipped?: boolean;
}

const only = (data: string, under: string, pattern: RegExp): string => {
  const hits: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(data, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else if (pattern.test(r)) hits.push(r);
    }
  };
  walk(under);
  return hits.sort().at(-1)!;
};
const activeSnapshot = (data: string) => `snapshots/${(JSON.parse(fs.readFileSync(path.join(data, 'active.json'), 'utf8')) as { snapshot_id: string }).snapshot_id}`;
const conversationId = (data: string) => path.basename(only(data, 'conversations', /\.json$/), '.json');

const KINDS: Kind[] = [
  { name: 'layout.json (layout 3)', file: 'layout.json', bump: bumpJson('layout'), commands: [['sources', 'list'], ['ask', Q], ['index', '--yes'], ['data', 'status']] },
  { name: 'layout.json (format 9)', file: 'layout.json', bump: bumpJson(), commands: [['snapshots'], ['prompts', 'promote', 'baseline-en']] },
  { name: 'sources.json', file: 'sources.json', bump: bumpJson(), commands: [['sources', 'list'], ['sources', 'add', 'DOCS'], ['index', '--yes']] },
  { name: 'documents.json (doc-id registry)', file: 'documents.json', bump: bumpJson(), commands: [['index', '--yes'], ['sources', 'scan']] },
  { name: 'active.json', file: 'active.json', bump: bumpJson(), commands: [['ask', Q], ['index', '--yes'], ['snapshots', 'activate', 'PARENT']] },
  { name: 'egress-consent.v2.json', file: 'egress-consent.v2.json', bump: bumpJson(), commands: [['index', '--yes']] },
  { name: 'snapshot manifest.json', file: (d) => `${activeSnapshot(d)}/manifest.json`, bump: bumpJson(), commands: [['ask', Q], ['index', '--yes']] },
  { name: 'segment documents.json', file: (d) => only(d, activeSnapshot(d), /segments\/[^/]+\/documents\.json$/), bump: bumpJson(), commands: [['ask', Q], ['index', '--yes']] },
  {
    name: 'keyword.pack',
    file: (d) => only(d, activeSnapshot(d), /keyword\.pack$/),
    bump: (b) => Buffer.from(b.toString('latin1').replace('"formatVersion":3', '"formatVersion":9'), 'latin1'),
    commands: [['ask', Q]],
  },
  { name: 'embedding cache meta.json', file: (d) => only(d, 'embeddings', /meta\.json$/), bump: bumpJson(), commands: [['index', '--yes']] },
  {
    name: 'embedding cache segment (seg-*.dqe)',
    file: (d) => only(d, 'embeddings', /\.dqe$/),
    bump: (b) => {
      const c = Buffer.from(b);
      c.writeUInt32LE(9, 4);
      return c;
    },
    commands: [['index', '--yes']],
    skipped: true,
  },
  { name: 'trace.json', file: (d) => only(d, 'traces', /trace\.json$/), bump: bumpJson(), commands: [['trace', 'show', 'RUN'], ['trace', 'list']] },
  { name: 'prompts/state.json', file: 'prompts/state.json', bump: bumpJson(), commands: [['prompts', 'list'], ['prompts', 'promote', 'baseline-en'], ['ask', Q]] },
  { name: 'prompt bundle.json', file: 'prompts/fixture-exp/bundle.json', bump: bumpJson(), commands: [['ask', Q], ['prompts', 'new', '--from', 'fixture-exp'], ['prompts', 'list']] },
  { name: 'evaluation', file: (d) => only(d, 'evals', /\.json$/), bump: bumpJson(), commands: [['eval', 'diff', 'EVAL', 'EVAL']] },
  {
    name: 'conversation',
    file: (d) => only(d, 'conversations', /\.json$/),
    bump: bumpJson(),
    commands: [['ask', Q, '--conversation', 'CONV', '--workspace', FIXTURE_WORKSPACE], ['chat', 'rename', 'CONV', 'renamed', '--workspace', FIXTURE_WORKSPACE], ['chat', 'list', '--workspace', FIXTURE_WORKSPACE]],
  },
  { name: 'build-state.json', file: 'build-state.json', create: { formatVersion: 1, build_id: 'bdeadbeef', state: 'paused', started_at: '2026-01-01T00:00:00.000Z', pid: 1, host: 'elsewhere' }, bump: bumpJson(), commands: [['index', '--yes']] },
  { name: 'backup.json', file: (d) => only(d, 'backups', /backup\.json$/), bump: bumpJson(), commands: [['data', 'status'], ['data', 'restore-backup', 'BACKUP']] },
];

describe('a file a newer DocQA wrote is refused and never overwritten', () => {
  let server: FakeOpenAIServer;
  let migrated: string;
  before(async () => {
    server = await new FakeOpenAIServer({ dimensions: 8, auto: true }).start(FIXTURE_PORT);
    const { data, docs } = copyFixture();
    assert.equal((await runCli(statusEnv(data), ['data', 'status'])).code, 0);
    // A changed document, so a build has something to embed (and reads the consent and the cache).
    fs.appendFileSync(path.join(docs, 'bio', 'cell-notes.md'), '\n## Lysosomes\n\nLysosomes digest worn-out parts of the cell.\n');
    migrated = data;
  });
  after(async () => {
    assert.deepEqual(server.scriptErrors, []);
    await server.close();
  });

  for (const kind of KINDS) {
    it(kind.name, async () => {
      const data = path.join(tempDir('docqa-future-'), 'data');
      fs.cpSync(migrated, data, { recursive: true });
      const rel = typeof kind.file === 'string' ? kind.file : kind.file(data);
      const file = path.join(data, rel);
      if (kind.create) fs.writeFileSync(file, JSON.stringify(kind.create));
      const bytes = kind.bump(fs.readFileSync(file));
      fs.writeFileSync(file, bytes);
      const names: Record<string, string> = {
        PARENT: fs.readdirSync(path.join(data, 'snapshots')).sort()[0]!,
        RUN: path.basename(path.dirname(file)),
        EVAL: path.basename(file, '.json'),
        CONV: kind.name === 'conversation' ? conversationId(data) : '',
        BACKUP: path.basename(path.dirname(file)),
        DOCS: path.join(path.dirname(migrated), 'docs', 'history'),
      };
      const env = { ...statusEnv(data), HOME: tempDir('docqa-future-home-'), DOCQA_CHAT_BASE_URL: server.baseURL, DOCQA_CHAT_API_KEY: 'sk-future-0000', DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'fake-embed', DOCQA_EMBEDDING_DIMENSIONS: '8', DOCQA_EMBEDDING_API_KEY: 'sk-future-embed-0000' };
      for (const [i, args] of kind.commands.entries()) {
        const r = await runCli(env, args.map((a) => names[a] ?? a));
        if (i === 0 && !kind.skipped) {
          assert.equal(r.code, 1, `docqa ${args.join(' ')} was not refused: ${r.stdout}${r.stderr}`);
          assert.ok(r.stderr.includes(file), `the message names ${file}: ${r.stderr}`);
          assert.match(r.stderr, /upgrade DocQA/);
        }
        if (kind.skipped) assert.equal(r.code, 0, r.stderr);
        assert.ok(fs.readFileSync(file).equals(bytes), `docqa ${args.join(' ')} changed ${rel}`);
      }
      recordTrials({ area: 'upgrade', fault: `a future-version ${kind.name}`, trials: kind.commands.length, outcome: kind.skipped ? 'skipped as a cache entry the build does not read; left as it is' : 'refused naming the file, "upgrade DocQA"; bytes unchanged' }, __filename);
    });
  }
});
