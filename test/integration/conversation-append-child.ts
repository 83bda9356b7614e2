/**
 * A second process for conversation-store.test.ts: appends `count` turns to one conversation through
 * its own DataDir, as another window would. Not a test file (the runner's glob skips it).
 */
import { ConversationStore } from '../../src/app/conversations/conversation-store';
import { DataDir } from '../../src/common/data-dir';

const [root, workspace, id, tag, count] = process.argv.slice(2);
void (async () => {
  const store = new ConversationStore(new DataDir(root!), workspace!);
  for (let i = 0; i < Number(count); i++) await store.appendTurn(id!, { question: `${tag} ${i}`, lang: 'en' });
})().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exitCode = 1;
});
