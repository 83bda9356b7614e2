import fs from 'node:fs';
import path from 'node:path';
import { FIXTURE_WORKSPACE } from '../fixtures/make-datadir';

/**
 * A file of each persisted kind as a newer DocQA would write it (a higher formatVersion, or a higher
 * layout), and the commands that read or write it: upgrade-rollback.test.ts checks that the first is
 * refused with a message naming the file and saying to upgrade DocQA, and that none changes its bytes.
 */
export const Q = 'What does the cell membrane do?';

/** formatVersion N → 9 in a JSON file (indented or compact). */
const bumpJson = (key = 'formatVersion') => (b: Buffer) => {
  const data = JSON.parse(b.toString('utf8')) as Record<string, unknown>;
  data[key] = 9;
  return Buffer.from(JSON.stringify(data, null, 2));
};

export interface Kind {
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
export const conversationId = (data: string) => path.basename(only(data, 'conversations', /\.json$/), '.json');

export const KINDS: Kind[] = [
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
