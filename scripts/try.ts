/**
 * `npm run try`: the freshly packaged extension in a real VS Code (code-server) on 127.0.0.1, with a
 * sample workspace of the fixtures' Chinese and English notes and PDFs, in a profile of its own (the
 * real ~/.vscode and ~/.docqa are not touched). Prints the URL to open; Ctrl-C stops it.
 *
 * With no DOCQA_CHAT_API_KEY in the environment it starts the project's fake OpenAI-compatible server
 * (a scripted model, not a real one) and points DocQA at it, so the whole product works offline; with
 * the key, DocQA uses DOCQA_CHAT_BASE_URL / DOCQA_CHAT_MODEL and the embedding variables as the CLI
 * does, and the keys are entered in VS Code as a user would ("DocQA: Set Chat API Key").
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { FakeOpenAIServer } from '../test/fakes/openai-server';
import { CodeServer, QUIET_SETTINGS, installExtension, makeProfile, removeProfile } from '../test/e2e/lib/code-server';
import { ROOT, packagedVsix } from '../test/e2e/lib/paths';

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** The fixtures a learner would have: Markdown and text notes in both languages, and PDFs. */
function sampleWorkspace(dir: string): void {
  const fixtures = path.join(ROOT, 'test', 'fixtures');
  const pick: Array<[string, string]> = [
    ['markdown/cell-notes.md', 'notes/cell-notes.md'],
    ['markdown/zh-history.md', 'notes/zh-history.md'],
    ['pdf/photosynthesis-en.pdf', 'papers/photosynthesis-en.pdf'],
    ['pdf/photosynthesis-zh.pdf', 'papers/photosynthesis-zh.pdf'],
    ['pdf/cell-lecture.pdf', 'papers/cell-lecture.pdf'],
  ];
  for (const [from, to] of pick) {
    const src = path.join(fixtures, from);
    if (!fs.existsSync(src)) continue;
    fs.mkdirSync(path.dirname(path.join(dir, to)), { recursive: true });
    fs.copyFileSync(src, path.join(dir, to));
  }
  for (const f of fs.readdirSync(path.join(fixtures, 'text')).filter((n) => n.endsWith('.txt')).slice(0, 3)) fs.copyFileSync(path.join(fixtures, 'text', f), path.join(dir, 'notes', f));
}

async function main(): Promise<void> {
  run('bash', ['test/e2e/setup.sh']);
  run('npm', ['run', 'package', '--silent']);
  const real = Boolean(process.env.DOCQA_CHAT_API_KEY);
  const fake = real ? null : await new FakeOpenAIServer({ auto: true }).start();
  const endpoints = fake
    ? { 'docqa.chat.baseUrl': fake.baseURL, 'docqa.chat.model': 'fake-chat', 'docqa.embedding.provider': 'openai-compatible', 'docqa.embedding.baseUrl': fake.baseURL, 'docqa.embedding.model': 'fake-embedding', 'docqa.embedding.dimensions': 64 }
    : {
        ...(process.env.DOCQA_CHAT_BASE_URL ? { 'docqa.chat.baseUrl': process.env.DOCQA_CHAT_BASE_URL } : {}),
        ...(process.env.DOCQA_CHAT_MODEL ? { 'docqa.chat.model': process.env.DOCQA_CHAT_MODEL } : {}),
        ...(process.env.DOCQA_EMBEDDING_BASE_URL ? { 'docqa.embedding.provider': 'openai-compatible', 'docqa.embedding.baseUrl': process.env.DOCQA_EMBEDDING_BASE_URL, 'docqa.embedding.model': process.env.DOCQA_EMBEDDING_MODEL ?? '' } : {}),
      };
  const profile = makeProfile({ ...QUIET_SETTINGS, ...endpoints });
  await installExtension(profile, packagedVsix());
  const workspace = path.join(profile.root, 'workspace');
  sampleWorkspace(workspace);
  const server = await CodeServer.start(profile, { disableWorkspaceTrust: true });
  const stop = async () => {
    await server.stop();
    await fake?.close();
    removeProfile(profile);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.stdout.write(
    [
      '',
      `DocQA in VS Code: open ${server.folderUrl(workspace)}`,
      fake ? `Model and embeddings: the fake server at ${fake.baseURL} (a scripted model, not a real one); any key works, e.g. "sk-try".` : 'Model and embeddings: your endpoints; enter the keys with "DocQA: Set Chat API Key" and "DocQA: Set Embedding API Key".',
      'Then: DocQA: Add All Workspace Folders → Rebuild Index → ask in the Chat view. Ctrl-C stops it (the profile is removed).',
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`try: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
