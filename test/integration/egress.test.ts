import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocQaApp } from '../../src/app/docqa-app';
import { AppSettings, fixedKeys } from '../../src/app/settings';
import type { EgressPlan } from '../../src/index/store/egress-consent';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { tempDir } from '../helpers';
import { recordTrials } from '../reliability/trials';
import { makeCli } from './cli';

const KEY = 'sk-egress-test-key';
// Shaped like real credentials, planted in notes: they must never reach the embedding server.
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const PRIVATE_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----';

function notes(): string {
  const root = tempDir('docqa-egress-');
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  write('cells.md', '# Cells\n\nThe mitochondrion makes ATP for the cell.\n');
  write('plants.md', '# Plants\n\nChloroplasts capture light in photosynthesis.\n\n## Leaves\n\nStomata open and close.\n');
  write('.env', `AWS_ACCESS_KEY_ID=${AWS_KEY}\n`);
  write('deploy/id_rsa', PRIVATE_KEY);
  write('setup.md', `# Setup\n\nMy key is ${AWS_KEY}, do not share.\n`);
  write('ssh.txt', `keep this safe\n${PRIVATE_KEY}\n`);
  return root;
}

describe('what leaves the machine: the first embedding build of a source asks, and secrets are never read', () => {
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer({ apiKey: KEY, auto: true }).start();
  });
  after(() => server.close());

  const newApp = (dataDir = path.join(tempDir('docqa-egress-data-'), 'data')) =>
    new DocQaApp({
      dataDir,
      settings: AppSettings.parse({ chat: { base_url: server.baseURL }, embedding: { provider: 'openai-compatible', base_url: server.baseURL, model: 'fake-embed', dimensions: 16 } }),
      keys: fixedKeys(KEY, KEY),
      appVersion: 'test',
    });

  it('shows files, blocks, tokens, host and the skipped secret-looking files; declining sends nothing and changes nothing', async () => {
    const app = newApp();
    const root = notes();
    await app.addSources([root]);
    const before = server.requests.length;
    const probes = server.probes.length;
    const plans: EgressPlan[] = [];
    const declined = await app.startBuild({ confirmEgress: async (p) => (plans.push(p), false) });
    await assert.rejects(declined.done, (err: Error & { code?: string }) => err.code === 'egress_declined' && /nothing was sent to 127\.0\.0\.1:\d+/.test(err.message));
    assert.equal(server.requests.length, before, 'not one request reached the embedding server');
    // Only the GETs that look for a local model server (GET /api/version, /api/v0/models), which carry nothing.
    assert.ok(server.probes.slice(probes).every((r) => r.method === 'GET' && Object.keys(r.body).length === 0 && /^\/api\/(version|v0\/models)$/.test(r.path)));
    assert.equal(await app.activeSnapshotId(), null);
    const [plan] = plans;
    assert.equal(plans.length, 1);
    assert.equal(plan!.host, new URL(server.baseURL).host);
    assert.equal(plan!.model, 'fake-embed');
    assert.deepEqual([plan!.files, plan!.sources.length], [2, 1], 'cells.md and plants.md; the files holding secrets are not sent');
    assert.ok(plan!.blocks >= 2 && plan!.tokens > 10, JSON.stringify(plan));
    assert.deepEqual(
      plan!.skipped.map((k) => [path.relative(root, k.path), k.reason]),
      [
        ['.env', 'secret_looking'],
        ['deploy/id_rsa', 'secret_looking'],
      ],
    );

    const agreed = await app.startBuild({ confirmEgress: async () => true });
    const r = await agreed.done;
    assert.equal(r?.activated, true);
    const sent = server.embeddedInputs.join('\n');
    assert.ok(sent.includes('mitochondrion'));
    assert.ok(!sent.includes(AWS_KEY) && !sent.includes('PRIVATE KEY'), 'no planted key reached an embedding request');
    assert.deepEqual(
      r!.manifest.failed_documents.map((f) => [path.basename(f.path), f.code]),
      [
        ['setup.md', 'secret_content'],
        ['ssh.txt', 'secret_content'],
      ],
    );
    assert.match(r!.manifest.failed_documents[0]!.message, /looks like an AWS access key \(near line 3\).*remove the secret/);
    assert.deepEqual(r!.manifest.skipped.map((k) => path.basename(k.path)), ['.env', 'id_rsa'], 'the snapshot lists what it did not read');

    // Agreed once per source and host: a change is sent without asking; a new source asks about itself only.
    fs.appendFileSync(path.join(root, 'cells.md'), '\nRibosomes make proteins.\n');
    const asked: EgressPlan[] = [];
    await (await app.startBuild({ confirmEgress: async (p) => (asked.push(p), true) })).done;
    assert.equal(asked.length, 0);
    const more = tempDir('docqa-egress-more-');
    fs.writeFileSync(path.join(more, 'genes.md'), '# Genes\n\nDNA is transcribed into RNA.\n');
    await app.addSources([more]);
    await (await app.startBuild({ confirmEgress: async (p) => (asked.push(p), true) })).done;
    assert.deepEqual(asked.map((p) => [p.files, p.sources.map((s) => s.path)]), [[1, [more]]]);
    await app.close();
    recordTrials({ area: 'egress', fault: 'the first embedding build of a source, declined', trials: 1, outcome: 'not one request sent; no snapshot' }, __filename);
    recordTrials({ area: 'egress', fault: 'secret-looking files in a source (.env, deploy/id_rsa)', trials: 2, outcome: 'not read; listed as skipped in the confirmation and the snapshot' }, __filename);
    recordTrials({ area: 'egress', fault: 'an AWS key and a private key planted in notes', trials: 2, outcome: 'those notes fail secret_content with the line; no key in any embedding request' }, __filename);
    recordTrials({ area: 'egress', fault: 'a new source after consent to another', trials: 1, outcome: 'asked about the new source only' }, __filename);
  });

  it('keyword-only builds send nothing and ask nothing', async () => {
    const app = new DocQaApp({ dataDir: path.join(tempDir('docqa-egress-kw-'), 'data'), settings: AppSettings.parse({ embedding: { provider: 'none' } }), keys: fixedKeys(undefined, undefined), appVersion: 'test' });
    await app.addSources([notes()]);
    const r = await (await app.startBuild({ confirmEgress: async () => assert.fail('nothing is sent, so nothing is asked') })).done;
    assert.equal(r?.activated, true);
    await app.close();
    recordTrials({ area: 'egress', fault: 'a keyword-only build', trials: 1, outcome: 'nothing sent, nothing asked' }, __filename);
  });

  it('the CLI asks on a terminal; without one it needs --yes and says what would be sent', async () => {
    const cli = makeCli({ DOCQA_EMBEDDING_PROVIDER: 'openai-compatible', DOCQA_EMBEDDING_BASE_URL: server.baseURL, DOCQA_EMBEDDING_MODEL: 'fake-embed', DOCQA_EMBEDDING_DIMENSIONS: '16', DOCQA_EMBEDDING_API_KEY: KEY });
    const root = notes();
    assert.equal(cli.run(['sources', 'add', root]).code, 0);
    const refused = await cli.runAsync(['index']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /2 files \(\d+ blocks, about \d+ tokens at most\) of “docqa-egress-\w+” will be sent to 127\.0\.0\.1:\d+ \(model fake-embed\)/);
    assert.match(refused.stderr, /\.env \(looks like a secret\)/);
    assert.match(refused.stderr, /Nothing was sent\. Run `docqa index --yes` to agree/);
    const ok = await cli.runAsync(['index', '--yes']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal((await cli.runAsync(['index'])).code, 0, 'agreed once: later builds do not ask');
    recordTrials({ area: 'egress', fault: 'docqa index without a terminal and without --yes', trials: 1, outcome: 'exit 2, says what would be sent where; nothing sent' }, __filename);
  });
});
