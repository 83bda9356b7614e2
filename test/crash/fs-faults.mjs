/**
 * A test-only preload (`node --import ./test/crash/fs-faults.mjs dist/cli.js …`) that makes the file
 * layer fail the way a full, broken or read-only disk does, for files under one folder only, in the
 * child process it is loaded into; the core has no seam for this and changes no process-wide state.
 *
 *   DOCQA_FS_FAULT        ENOSPC (data writes fail), EIO (data writes and fsync fail) or EROFS
 *                         (everything that changes the folder fails: opening for writing, mkdir,
 *                         rename, unlink, rm, utimes, …)
 *   DOCQA_FS_FAULT_UNDER  the folder (absolute)
 *   DOCQA_FS_FAULT_AFTER  how many matching operations succeed first (default 0); every later one
 *                         fails, as a disk that is full stays full
 *
 * It loads before the bundle, so graceful-fs (proper-lockfile) and write-file-atomic capture the
 * patched functions (the default export of node:fs is the object `require('fs')` returns).
 */
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { URL } from 'node:url';

const code = process.env.DOCQA_FS_FAULT;
const root = process.env.DOCQA_FS_FAULT_UNDER ? path.resolve(process.env.DOCQA_FS_FAULT_UNDER) : null;
let allowed = Number(process.env.DOCQA_FS_FAULT_AFTER || 0);
const ERRNO = { ENOSPC: -28, EIO: -5, EROFS: -30 };

if (code && root) {
  const fdPath = new Map();
  const inside = (p) => {
    if (typeof p === 'number') return fdPath.has(p);
    if (p && typeof p === 'object' && typeof p.fd === 'number') return fdPath.has(p.fd);
    if (typeof p !== 'string' && !Buffer.isBuffer(p) && !(p instanceof URL)) return false;
    const abs = path.resolve(p instanceof URL ? p.pathname : String(p));
    return abs === root || abs.startsWith(root + path.sep);
  };
  const shouldFail = (target) => {
    if (!inside(target)) return false;
    if (allowed > 0) {
      allowed--;
      return false;
    }
    return true;
  };
  const error = (syscall, target) => {
    const where = typeof target === 'number' ? fdPath.get(target) : typeof target === 'object' && target && 'fd' in target ? fdPath.get(target.fd) : String(target);
    const e = new Error(`${code}: injected by the test, ${syscall} '${where}'`);
    e.code = code;
    e.errno = ERRNO[code];
    e.syscall = syscall;
    e.path = where;
    return e;
  };
  const writingFlags = (flags) => flags !== undefined && flags !== 'r' && flags !== 'rs' && flags !== 'sr' && flags !== fs.constants.O_RDONLY;
  const dataOps = ['write', 'writeFile', 'appendFile', 'writev'];
  const syncOps = code === 'EIO' ? ['fsync', 'fdatasync'] : [];
  const changeOps = code === 'EROFS' ? ['mkdir', 'rename', 'unlink', 'rm', 'rmdir', 'copyFile', 'link', 'symlink', 'utimes', 'truncate', 'ftruncate', 'chmod', 'mkdtemp'] : [];
  const failing = new Set([...dataOps, ...syncOps, ...changeOps]);

  // The target an operation changes: its first argument (a path or an fd); rename/copy/link: the second
  // too. A read-only disk still lets `mkdir -p` of a folder that exists succeed.
  const existsSync = fs.existsSync;
  const targets = (name, args) => (name === 'mkdir' && existsSync(args[0]) ? [] : ['rename', 'copyFile', 'link', 'symlink'].includes(name) ? [args[0], args[1]] : [args[0]]);

  const wrapCallback = (name) => {
    const orig = fs[name];
    if (typeof orig !== 'function') return;
    fs[name] = function (...args) {
      if (targets(name, args).some(shouldFail)) {
        const cb = args[args.length - 1];
        const e = error(name, args[0]);
        if (typeof cb === 'function') return void process.nextTick(cb, e);
        throw e;
      }
      return orig.apply(this, args);
    };
  };
  const wrapSync = (name) => {
    const orig = fs[`${name}Sync`];
    if (typeof orig !== 'function') return;
    fs[`${name}Sync`] = function (...args) {
      if (targets(name, args).some(shouldFail)) throw error(name, args[0]);
      return orig.apply(this, args);
    };
  };
  const wrapPromise = (name) => {
    const orig = fs.promises[name];
    if (typeof orig !== 'function') return;
    fs.promises[name] = async function (...args) {
      if (targets(name, args).some(shouldFail)) throw error(name, args[0]);
      return orig.apply(this, args);
    };
  };
  for (const name of failing) {
    wrapCallback(name);
    wrapSync(name);
    wrapPromise(name);
  }

  // Opening: remember fds under the folder (writes through them are then matched); read-only refuses writing opens.
  const origOpenSync = fs.openSync;
  fs.openSync = function (p, flags, ...rest) {
    if (code === 'EROFS' && writingFlags(flags) && shouldFail(p)) throw error('open', p);
    const fd = origOpenSync.call(this, p, flags, ...rest);
    if (inside(p)) fdPath.set(fd, String(p));
    return fd;
  };
  const origOpen = fs.open;
  fs.open = function (p, flags, ...rest) {
    const cb = rest.pop();
    if (code === 'EROFS' && typeof flags !== 'function' && writingFlags(flags) && shouldFail(p)) return void process.nextTick(cb, error('open', p));
    return origOpen.call(this, p, flags, ...rest, (err, fd) => {
      if (!err && inside(p)) fdPath.set(fd, String(p));
      cb(err, fd);
    });
  };
  const origPOpen = fs.promises.open;
  fs.promises.open = async function (p, flags, ...rest) {
    if (code === 'EROFS' && writingFlags(flags) && shouldFail(p)) throw error('open', p);
    const h = await origPOpen.call(this, p, flags, ...rest);
    if (!inside(p)) return h;
    fdPath.set(h.fd, String(p));
    // A FileHandle's own writes and syncs go through the same rule.
    return new Proxy(h, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target);
        if (typeof v !== 'function') return v;
        if (failing.has(prop) || (prop === 'sync' && code === 'EIO')) {
          return async (...args) => {
            if (shouldFail(h.fd)) throw error(prop, h.fd);
            return v.apply(target, args);
          };
        }
        return v.bind(target);
      },
    });
  };
}
