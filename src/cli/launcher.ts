import fs from 'node:fs';
import { createRequire, wrap } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/**
 * `docqa` (dist/cli.js): runs the CLI's bundle (dist/cli-main.js) compiled with V8's code cache, kept in
 * a file beside it. Compiling the 3.9 MB bundle took about 105 ms of every command's start (a third of
 * `docqa --version`); from the cache it takes about 20. Node 20 has no compile cache of its own
 * (`module.enableCompileCache` came in Node 22), so this does what it does, for the one bundle a person
 * starts again and again.
 *
 * The cache is written when a process that found none (or one V8 refused: another Node, other V8 flags)
 * exits, after its command ran, so it holds the functions that command compiled too. It is only ever a
 * speed-up: a cache that cannot be read, written (a read-only install) or used is ignored, quietly.
 */
declare const __CLI_MAIN_SHA__: string;

const bundle = path.join(__dirname, 'cli-main.js');
const cacheFile = path.join(__dirname, 'cli-main.v8cache');
/** The bundle's hash (set by the build), the Node and the machine: a cache made for anything else is not read. */
const key = Buffer.from(`docqa-v8cache 1 ${__CLI_MAIN_SHA__} ${process.version} ${process.arch}\n`);

function readCache(): Buffer | undefined {
  try {
    const file = fs.readFileSync(cacheFile);
    return file.subarray(0, key.length).equals(key) ? file.subarray(key.length) : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(script: vm.Script): void {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, Buffer.concat([key, script.createCachedData()]));
    fs.renameSync(temp, cacheFile);
  } catch {
    fs.rmSync(temp, { force: true });
  }
}

const source = fs.readFileSync(bundle, 'utf8');
const cachedData = readCache();
// The build turns the bundle's dynamic imports into require calls (esbuild.mjs): a script compiled here
// has no loader for import().
const script = new vm.Script(wrap(source), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
if (!cachedData || script.cachedDataRejected) process.once('exit', () => writeCache(script));
// Handed this module, the bundle finds itself the main module (`require.main === module`) and runs.
(script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(bundle), module, bundle, __dirname);
