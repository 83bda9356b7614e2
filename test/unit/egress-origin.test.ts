import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DataDir } from '../../src/common/data-dir';
import { LAYOUT_MIGRATIONS } from '../../src/app/upgrade/layout-migrations';
import { type EgressConsent, egressPlan, readConsents } from '../../src/index/store/egress-consent';
import type { Source } from '../../src/index/sources/sources';
import { fixture, ingestOk, tempDir } from '../helpers';

const SOURCE: Source = { id: 's1', kind: 'folder', path: '/notes', label: 'fixtures', aliases: [], include: [], exclude: [], include_hidden: false };
const consent = (origin: string, host: string): EgressConsent => ({ source_id: 's1', source_path: '/notes', origin, host, model: 'm', at: '2026-01-01T00:00:00.000Z' });

describe('egress consent is for an endpoint origin (scheme, host, port)', () => {
  it('a consent for https://h does not cover http://h (port 80, in the clear) nor another port', async () => {
    const docs = [await ingestOk(fixture('markdown', 'cell-notes.md'))];
    const given = [consent('https://h.example', 'h.example')];
    assert.equal(egressPlan(docs, [SOURCE], [], given, 'https://h.example/v1', 'm'), null);
    for (const other of ['http://h.example/v1', 'https://h.example:8443/v1']) {
      const plan = egressPlan(docs, [SOURCE], [], given, other, 'm');
      assert.deepEqual([plan?.origin, plan?.sources.map((s) => s.id)], [new URL(other).origin, ['s1']], other);
    }
    // Before, all three were one "host": h.example (443 and 80 are both left out of URL.host).
    assert.equal(new URL('http://h.example/v1').host, new URL('https://h.example/v1').host);
  });

  it('the layout 1 → 2 step makes each format-1 host an https origin and leaves the format-1 file as it was', async () => {
    const dir = new DataDir(tempDir());
    const v1 = { formatVersion: 1, consents: [{ source_id: 's1', source_path: '/notes', host: 'localhost:8080', model: 'm', at: '2026-01-01T00:00:00.000Z' }] };
    const file = path.join(dir.root, 'egress-consent.json');
    fs.writeFileSync(file, JSON.stringify(v1));
    const bytes = fs.readFileSync(file);
    await LAYOUT_MIGRATIONS[0]!.run(dir);
    assert.deepEqual((await readConsents(dir)).map((c) => [c.origin, c.host]), [['https://localhost:8080', 'localhost:8080']]);
    assert.ok(fs.readFileSync(file).equals(bytes));
    // An endpoint that was really plain http is asked about again.
    const docs = [await ingestOk(fixture('markdown', 'cell-notes.md'))];
    assert.notEqual(egressPlan(docs, [SOURCE], [], await readConsents(dir), 'http://localhost:8080/v1', 'm'), null);
    assert.equal(egressPlan(docs, [SOURCE], [], await readConsents(dir), 'https://localhost:8080/v1', 'm'), null);
  });
});
