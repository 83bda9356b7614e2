import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CodeServer, QUIET_SETTINGS, dataDirOf, installExtension, makeProfile, removeProfile } from '../test/e2e/lib/code-server';
import { ROOT, packagedVsix } from '../test/e2e/lib/paths';
import { runCommand } from '../test/e2e/lib/quick-input';
import { launchBrowser, listRow, openWorkbench } from '../test/e2e/lib/workbench';
import { qaParagraphs } from './fixtures';
import type { BenchRow } from './report';

/** Samples per case: each is a fresh code-server and browser (VS Code measures one activation per window). */
const SAMPLES = 3;
const NOTES = 1000;
const PARAGRAPHS_PER_NOTE = 10;

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** A data directory with a real keyword-only snapshot of 10,000 blocks (1,000 notes of ten paragraphs), built by the CLI. */
function dataDirWithSnapshot(root: string): { dir: string; blocks: number } {
  const { paragraphs } = qaParagraphs();
  if (paragraphs.length === 0) throw new Error('the QA corpus (../shared/corpus/qa) is missing');
  const notes = path.join(root, 'notes');
  fs.mkdirSync(notes);
  for (let i = 0; i < NOTES; i++) {
    const parts = Array.from({ length: PARAGRAPHS_PER_NOTE }, (_, k) => `## Part ${k + 1}\n\n${paragraphs[(i * PARAGRAPHS_PER_NOTE + k) % paragraphs.length]}`);
    fs.writeFileSync(path.join(notes, `note-${String(i).padStart(4, '0')}.md`), `# Note ${i}\n\n${parts.join('\n\n')}\n`);
  }
  const dir = path.join(root, 'data');
  const env = { PATH: process.env.PATH ?? '', HOME: root, DOCQA_HOME: dir, DOCQA_EMBEDDING_PROVIDER: 'none' };
  const cli = path.join(ROOT, 'dist', 'cli.js');
  run(process.execPath, [cli, 'sources', 'add', notes], env);
  run(process.execPath, [cli, 'index'], env);
  const active = JSON.parse(fs.readFileSync(path.join(dir, 'active.json'), 'utf8')) as { id?: string; snapshot_id?: string };
  const id = active.id ?? active.snapshot_id;
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'snapshots', String(id), 'manifest.json'), 'utf8')) as { stats: { blocks: number } };
  return { dir, blocks: manifest.stats.blocks };
}

/** One window: opens the DocQA view (which activates the extension) and reads VS Code's own activation time for it. */
async function activationMs(vsix: string, pkg: { publisher: string; name: string }, dataDir: string | null, scratch: string): Promise<number> {
  const extensionId = `${pkg.publisher}.${pkg.name}`;
  const profile = makeProfile({ ...QUIET_SETTINGS, 'security.workspace.trust.enabled': false });
  let server: CodeServer | null = null;
  let browser: Awaited<ReturnType<typeof launchBrowser>> | null = null;
  try {
    await installExtension(profile, vsix);
    if (dataDir) fs.cpSync(dataDir, dataDirOf(profile, extensionId), { recursive: true });
    const folder = fs.mkdtempSync(path.join(scratch, 'ws-'));
    server = await CodeServer.start(profile, { disableWorkspaceTrust: true });
    browser = await launchBrowser(path.join(profile.root, 'browser-home'));
    const page = await openWorkbench(browser, server.folderUrl(folder));
    // Its icon in the activity bar, clicked as a person would once the workbench lists the extension.
    const icon = page.locator('.activitybar .action-item a[aria-label^="DocQA"]').first();
    await icon.waitFor({ timeout: 60_000 });
    await icon.click();
    // The Sources view asks the extension for its rows: it is active once they are there.
    await page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Sources' }) }).locator('.monaco-list-row, .welcome-view-content').first().waitFor({ timeout: 60_000 });
    // The palette is sometimes read before its filter applies while the views load: try again.
    for (let attempt = 1; ; attempt++) {
      try {
        await runCommand(page, 'Developer: Show Running Extensions');
        break;
      } catch (err) {
        if (attempt === 3) throw err;
        await page.keyboard.press('Escape');
      }
    }
    const row = await listRow(page, page.locator('.runtime-extensions-editor'), pkg.name);
    const text = await row.innerText();
    const m = /Activation: (\d+)ms/.exec(text);
    if (!m) throw new Error(`no activation time in the Running Extensions row: ${JSON.stringify(text)}`);
    return Number(m[1]);
  } finally {
    if (browser) await browser.close().catch(() => undefined);
    if (server) await server.stop();
    removeProfile(profile);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * The extension's activation in a real VS Code (code-server), as VS Code measures it (loading its code,
 * calling activate), with a 10,000-block snapshot in its data directory and, as the floor, with an empty
 * one: the snapshot must load on first use, not at activation.
 */
export async function activationBench(): Promise<BenchRow[]> {
  run('bash', ['test/e2e/setup.sh']);
  run('npm', ['run', 'package', '--silent']);
  const vsix = packagedVsix();
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { publisher: string; name: string };
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-activation-'));
  try {
    const { dir, blocks } = dataDirWithSnapshot(scratch);
    const empty: number[] = [];
    const full: number[] = [];
    // Interleaved, so that a slow moment of the machine falls on both cases.
    for (let i = 0; i < SAMPLES; i++) {
      empty.push(await activationMs(vsix, pkg, null, scratch));
      full.push(await activationMs(vsix, pkg, dir, scratch));
    }
    const withSnapshot = median(full);
    const floor = median(empty);
    return [
      { name: `extension.activation_with_${blocks}_block_snapshot_ms`, value: withSnapshot, unit: 'ms', floor, ratio: withSnapshot / floor, target: '<= 1.5' },
      { name: 'extension.activation_ms', value: withSnapshot, unit: 'ms', floor: null, ratio: null, target: '<= 150', absolute: true },
    ];
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
