import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSecretLookingName, secretIn } from '../../src/index/sources/secret-files';
import { egressPrompt } from '../../src/vscode/egress-model';

const t = (m: string, ...args: Array<string | number>) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));

describe('secret-looking files and contents', () => {
  it('names: credentials by their usual names, case-insensitively; notes that only mention them are not', () => {
    for (const n of ['.env', '.env.production', 'prod.env', 'SERVER.PEM', 'tls.key', 'id_rsa', 'id_ed25519.pub', '.npmrc', '.git-credentials', 'credentials.json', 'service-account-prod.json', 'vault.kdbx']) assert.ok(isSecretLookingName(n), n);
    for (const n of ['environment.md', 'keys.md', 'keystore-notes.md', 'pem-format.txt', 'credentials-lecture.pdf', 'envelope.md']) assert.ok(!isSecretLookingName(n), n);
  });

  it('contents: private keys and provider token shapes, with the line; prose about keys is not a key', () => {
    assert.deepEqual(secretIn('a\nb\n-----BEGIN RSA PRIVATE KEY-----\nMII…'), { what: 'a private key', line: 3 });
    assert.deepEqual(secretIn('AWS: AKIAIOSFODNN7EXAMPLE'), { what: 'an AWS access key', line: 1 });
    assert.equal(secretIn(`x\n\nexport OPENAI_API_KEY=sk-proj-${'a1B2'.repeat(10)}`)?.line, 3);
    assert.equal(secretIn(`token ghp_${'x'.repeat(36)}`)?.what, 'a GitHub token');
    for (const prose of ['A private key begins with -----BEGIN and is kept secret.', 'Keys look like sk-... and AKIA followed by letters.', 'The skeleton key (sk-short) opens nothing.']) assert.equal(secretIn(prose), null, prose);
  });

  it('the confirmation names counts, host, model and at most eight skipped entries', () => {
    const skipped = Array.from({ length: 10 }, (_, i) => ({ path: `/n/.env.${i}`, kind: 'file' as const, reason: 'secret_looking' as const }));
    const { message, detail } = egressPrompt({ host: 'dashscope.aliyuncs.com', origin: 'https://dashscope.aliyuncs.com', model: 'text-embedding-v4', sources: [{ id: 's1', label: 'notes', path: '/n', files: 3, blocks: 40, tokens: 12345 }], files: 3, blocks: 40, tokens: 12345, skipped }, t);
    assert.equal(message, 'DocQA: send 3 files (40 blocks, about 12,345 tokens at most) of “notes” to dashscope.aliyuncs.com to be embedded?');
    assert.match(detail, /^Model: text-embedding-v4\./);
    assert.match(detail, /Not read and not sent \(10\):\n• \/n\/\.env\.0 \(looks like a secret\)/);
    assert.equal(detail.split('\n').filter((l) => l.startsWith('• ')).length, 8);
    assert.match(detail, /… and 2 more$/);
  });
});
