import picomatch from 'picomatch';
import { z } from 'zod';

/**
 * Files DocQA never reads, whatever the include globs say: they look like credentials, and whatever is
 * read may be sent to the embedding service. Matched on the file name, case-insensitively.
 */
export const SECRET_LOOKING_NAMES = [
  '.env',
  '.env.*',
  '*.env',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '*.kdbx',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.htpasswd',
  'credentials',
  'credentials.json',
  'service-account*.json',
] as const;

const secretName = picomatch([...SECRET_LOOKING_NAMES], { dot: true, nocase: true, basename: true });

export function isSecretLookingName(name: string): boolean {
  return secretName(name);
}

/** Why an entry of a source was not read, though it was there (listed before anything is sent). */
export const SkippedEntry = z.object({
  path: z.string(),
  kind: z.enum(['file', 'folder']),
  reason: z.enum(['secret_looking', 'outside_source', 'gitignored']),
});
export type SkippedEntry = z.infer<typeof SkippedEntry>;

/**
 * Credentials pasted into a note: private key blocks and the token shapes of the common providers. A
 * document holding one is not indexed (its text would go to the embedding service); the failure names
 * the line so the person can remove it.
 */
const SECRET_CONTENT: ReadonlyArray<readonly [string, RegExp]> = [
  ['a private key', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/],
  ['an AWS access key', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ['an OpenAI-style API key', /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{32,}/],
  ['a GitHub token', /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{40,}/],
  ['a Slack token', /\bxox[abprs]-[A-Za-z0-9-]{10,}/],
  ['a Google API key', /\bAIza[0-9A-Za-z_-]{35}\b/],
];

/** What secret a text holds and on which line (1-based), or null. */
export function secretIn(text: string): { what: string; line: number } | null {
  for (const [what, re] of SECRET_CONTENT) {
    const m = re.exec(text);
    if (m) return { what, line: text.slice(0, m.index).split('\n').length };
  }
  return null;
}
