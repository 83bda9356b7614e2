/**
 * A fresh code-server (VS Code in the browser, the recipe in /work/shared/E2E.md) for one test: its own
 * user-data, extensions, config and HOME folders, bound to 127.0.0.1 on a free port, no authentication,
 * in its own process group so that stopping it also stops the helpers it starts (file watcher, extension
 * host, agent host).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CODE_SERVER_ENTRY, NODE24, assertToolsInstalled } from './paths';

/** A quiet workbench: no welcome page, tips, chat panel, update or telemetry traffic. */
export const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
};

export interface Profile {
  /** Everything of this server lives under here (removed by `removeProfile`). */
  readonly root: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  readonly configFile: string;
  readonly home: string;
}

/**
 * Makes the folders for one server and writes its user settings before it starts (VS Code reads
 * `User/settings.json` from the user-data folder). Nothing is read from or written to the real HOME.
 */
export function makeProfile(settings: Record<string, unknown>): Profile {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-e2e-'));
  const profile: Profile = {
    root,
    userDataDir: path.join(root, 'user-data'),
    extensionsDir: path.join(root, 'extensions'),
    configFile: path.join(root, 'code-server.yaml'),
    home: path.join(root, 'home'),
  };
  for (const dir of [path.join(profile.userDataDir, 'User'), profile.extensionsDir, profile.home]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(profile.userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  // Written here so code-server never writes a default one (with a password) into ~/.config.
  fs.writeFileSync(profile.configFile, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  return profile;
}

export function removeProfile(profile: Profile): void {
  fs.rmSync(profile.root, { recursive: true, force: true });
}

/** The environment code-server and its extension host run with: only what is given, HOME and XDG inside the profile. */
function serverEnv(profile: Profile, env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: `${path.dirname(NODE24)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: profile.home,
    XDG_CONFIG_HOME: path.join(profile.home, '.config'),
    XDG_DATA_HOME: path.join(profile.home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(profile.home, '.cache'),
    TMPDIR: os.tmpdir(),
    LANG: 'C.UTF-8',
    ...env,
  };
}

function commonArgs(profile: Profile): string[] {
  return ['--config', profile.configFile, '--user-data-dir', profile.userDataDir, '--extensions-dir', profile.extensionsDir];
}

function runCodeServerCli(profile: Profile, args: string[]): Promise<string> {
  assertToolsInstalled();
  return new Promise((resolve, reject) => {
    execFile(NODE24, [CODE_SERVER_ENTRY, ...commonArgs(profile), ...args], { env: serverEnv(profile, {}), timeout: 60_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`code-server ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Installs a .vsix into the profile's extensions folder, as `code-server --install-extension` does for a user. */
export async function installExtension(profile: Profile, vsix: string): Promise<void> {
  const out = await runCodeServerCli(profile, ['--install-extension', vsix, '--force']);
  if (!/was successfully installed/.test(out)) throw new Error(`installing ${vsix} did not succeed:\n${out}`);
}

/** `publisher.name@version` of every extension installed in the profile. */
export async function listExtensions(profile: Profile): Promise<string[]> {
  const out = await runCodeServerCli(profile, ['--list-extensions', '--show-versions']);
  return out.split('\n').map((l) => l.trim()).filter((l) => /^[\w.-]+@/.test(l));
}

export interface Activation {
  readonly id: string;
  readonly startup: boolean;
  readonly event: string;
}

function extensionHostLogs(profile: Profile): string[] {
  const logs = path.join(profile.userDataDir, 'logs');
  if (!fs.existsSync(logs)) return [];
  const files: string[] = [];
  for (const session of fs.readdirSync(logs).sort()) {
    const dir = path.join(logs, session);
    for (const host of fs.readdirSync(dir).filter((n) => /^exthost\d+$/.test(n)).sort()) {
      const file = path.join(dir, host, 'remoteexthost.log');
      if (fs.existsSync(file)) files.push(fs.readFileSync(file, 'utf8'));
    }
  }
  return files;
}

/** Whether an extension host has finished activating the eager (`*`) extensions, per its log. */
export function extensionHostStarted(profile: Profile): boolean {
  return extensionHostLogs(profile).some((log) => log.includes('Eager extensions activated'));
}

/** Every extension activation the extension hosts logged, in order, with the event that caused it. */
export function extensionActivations(profile: Profile): Activation[] {
  const re = /ExtensionService#_doActivateExtension (\S+), startup: (true|false), activationEvent: '([^']*)'/g;
  return extensionHostLogs(profile).flatMap((log) => [...log.matchAll(re)].map((m) => ({ id: m[1]!, startup: m[2] === 'true', event: m[3]! })));
}

/** The extension's data directory (its globalStorageUri) in this profile. */
export function dataDirOf(profile: Profile, extensionId: string): string {
  return path.join(profile.userDataDir, 'User', 'globalStorage', extensionId.toLowerCase());
}

/** The user settings file of the profile, parsed (VS Code keeps it JSON with comments; ours has none); null while it does not parse. */
export function userSettings(profile: Profile): Record<string, unknown> | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(profile.userDataDir, 'User', 'settings.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return null; // mid-write
  }
}

export interface StartOptions {
  /** Extra environment for the server and the extension host (the product's DOCQA_* variables). */
  env?: Record<string, string>;
  /** `--disable-workspace-trust`: folders open trusted instead of in Restricted Mode. */
  disableWorkspaceTrust?: boolean;
  /** How long to wait for the server to listen. */
  startTimeoutMs?: number;
}

export class CodeServer {
  private exited = false;
  private readonly exitedPromise: Promise<void>;
  private readonly killOnExit = () => this.killGroup('SIGKILL');

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    /** The server's stdout and stderr, as they came (also written to `logFile`). */
    readonly logFile: string,
  ) {
    this.exitedPromise = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('exit', () => (this.exited = true));
    process.once('exit', this.killOnExit);
  }

  static async start(profile: Profile, options: StartOptions = {}): Promise<CodeServer> {
    assertToolsInstalled();
    const logFile = path.join(profile.root, 'code-server.log');
    const log = fs.createWriteStream(logFile);
    const args = [CODE_SERVER_ENTRY, ...commonArgs(profile), '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override'];
    if (options.disableWorkspaceTrust) args.push('--disable-workspace-trust');
    // detached: a process group of its own, so stop() reaches every helper code-server starts.
    const child = spawn(NODE24, args, { env: serverEnv(profile, options.env ?? {}), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`code-server did not listen within ${options.startTimeoutMs ?? 60_000} ms`)), options.startTimeoutMs ?? 60_000);
      const fail = (e: Error) => {
        clearTimeout(timer);
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        reject(new Error(`${e.message}\n--- code-server output ---\n${output}`));
      };
      const onData = (d: Buffer) => {
        log.write(d);
        output += d.toString('utf8');
        const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('error', fail);
      child.once('exit', (code, signal) => fail(new Error(`code-server exited before listening (code ${code}, signal ${signal})`)));
    });
    return new CodeServer(child, url, logFile);
  }

  /** The workbench URL that opens `folder`. */
  folderUrl(folder: string): string {
    return `${this.url}/?folder=${encodeURIComponent(folder)}`;
  }

  private killGroup(signal: NodeJS.Signals | 0): boolean {
    try {
      process.kill(-this.child.pid!, signal);
      return true;
    } catch {
      return false; // ESRCH: nothing left in the group
    }
  }

  private groupAlive(): boolean {
    return this.killGroup(0);
  }

  /** SIGTERM to the whole group, SIGKILL to whatever is left after `graceMs`; resolves when the group is empty. */
  async stop(graceMs = 5_000): Promise<void> {
    process.removeListener('exit', this.killOnExit);
    this.killGroup('SIGTERM');
    const deadline = Date.now() + graceMs;
    while (this.groupAlive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (this.groupAlive()) this.killGroup('SIGKILL');
    const hardDeadline = Date.now() + 5_000;
    while (this.groupAlive()) {
      if (Date.now() > hardDeadline) throw new Error(`code-server's process group ${this.child.pid} survived SIGKILL`);
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!this.exited) await this.exitedPromise;
  }
}

/**
 * The end of a journey, passed or not: the browser and server stopped, code-server's log kept with the
 * screenshots, and the profile removed — or kept, and said where, when the journey failed.
 */
export async function endJourney(journey: { dir: string }, r: { browser: { close(): Promise<void> } | null; server: CodeServer | null; profile: Profile | null; passed: boolean }): Promise<void> {
  if (r.browser) await r.browser.close().catch(() => {});
  if (r.server) await r.server.stop();
  if (!r.profile) return;
  const log = path.join(r.profile.root, 'code-server.log');
  if (fs.existsSync(log)) fs.copyFileSync(log, path.join(journey.dir, 'code-server.log'));
  if (r.passed) removeProfile(r.profile);
  else console.error(`e2e: the profile (settings, logs, workspace) is kept in ${r.profile.root}`);
}
