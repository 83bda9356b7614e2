/**
 * `npm run fake-server -- [--script FILE] [--port N] [--auto] [--api-key KEY]`: the test fake, by hand.
 * It serves /v1/chat/completions (streaming) and /v1/embeddings on 127.0.0.1 and prints the settings
 * that point DocQA at it. Chat replies come from the script file — a JSON array of replies, each a
 * string or {"content", "reasoning"}, where {{ref:N}} is the N-th block ref of the last Observation
 * and {{question}} the question — then, with --auto (or without a script), from a tiny deterministic
 * agent that searches for the question and cites what it found. A scripted model, not a real one.
 */
import fs from 'node:fs';
import { FakeOpenAIServer, type ChatReply } from './openai-server';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const scriptFile = arg('--script');
  const port = Number(arg('--port') ?? 0);
  const replies: ChatReply[] = scriptFile ? (JSON.parse(fs.readFileSync(scriptFile, 'utf8')) as ChatReply[]) : [];
  if (!Array.isArray(replies)) throw new Error(`${scriptFile}: expected a JSON array of replies`);
  const server = await new FakeOpenAIServer({ apiKey: arg('--api-key'), auto: process.argv.includes('--auto') || !scriptFile }).start(port);
  server.scriptChat(...replies);
  process.stdout.write(
    [
      `fake OpenAI-compatible server (a scripted model, not a real one) at ${server.baseURL}`,
      `export DOCQA_CHAT_BASE_URL=${server.baseURL}`,
      `export DOCQA_EMBEDDING_BASE_URL=${server.baseURL} DOCQA_EMBEDDING_MODEL=fake-embedding DOCQA_EMBEDDING_DIMENSIONS=64`,
      `${replies.length} scripted repl${replies.length === 1 ? 'y' : 'ies'}${server.auto ? ', then the automatic agent' : ''}; Ctrl-C stops it`,
      '',
    ].join('\n'),
  );
  process.on('SIGINT', () => void server.close().then(() => process.exit(0)));
}

main().catch((err: unknown) => {
  process.stderr.write(`fake-server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
