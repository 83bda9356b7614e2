import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import semver from 'semver';

const ROOT = path.join(__dirname, '..', '..');

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string; vscode?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const readManifest = (dir: string): Manifest => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
const project = readManifest(ROOT);

/**
 * The Node that each VS Code release runs extensions on: the one its Electron bundles, as Help > About
 * shows it. Whoever moves `engines.vscode` adds the row for its new minimum.
 */
const NODE_OF_VSCODE: Readonly<Record<string, string>> = {
  '1.95': '20.18.0', // Electron 32.2.1
  '1.100': '20.19.0', // Electron 34.5.1 (1.96-1.99 ship Node 20.18.x)
  '1.101': '22.15.1', // Electron 35.5.1: the first VS Code on Node 22
};

/** Where Node would load `name` from when required by the package in `from` (nested node_modules first). */
function findPackage(name: string, from: string): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === ROOT || dir === path.dirname(dir)) return null;
  }
}

/** Every installed package the runtime dependencies pull in, direct and transitive, once each. */
function runtimeClosure(): { packages: Map<string, Manifest>; missing: string[] } {
  const packages = new Map<string, Manifest>();
  const missing: string[] = [];
  const visit = (dir: string, m: Manifest, top: boolean) => {
    const required = { ...(top ? {} : m.peerDependencies), ...m.dependencies };
    const optional = new Set([...Object.keys(m.optionalDependencies ?? {}), ...Object.keys(m.peerDependenciesMeta ?? {}).filter((p) => m.peerDependenciesMeta?.[p]?.optional)]);
    for (const name of new Set([...Object.keys(required), ...optional])) {
      const found = findPackage(name, dir);
      if (!found) {
        if (!optional.has(name)) missing.push(`${name} (required by ${m.name})`);
        continue;
      }
      if (packages.has(found)) continue;
      const dep = readManifest(found);
      packages.set(found, dep);
      visit(found, dep, false);
    }
  };
  visit(ROOT, { name: project.name, version: project.version, dependencies: project.dependencies }, true);
  return { packages, missing };
}

describe('engines: the runtime dependencies fit the hosts', () => {
  const declared = project.engines?.node;
  const vscodeRange = project.engines?.vscode;
  assert.ok(declared && vscodeRange, 'package.json declares engines.node and engines.vscode');
  const minimumNode = semver.minVersion(declared)!.version;
  const oldestVscode = semver.minVersion(vscodeRange)!;

  it('the oldest VS Code that engines.vscode admits runs extensions on a Node that engines.node admits', () => {
    const hostNode = NODE_OF_VSCODE[`${oldestVscode.major}.${oldestVscode.minor}`];
    assert.ok(hostNode, `add the Node of VS Code ${oldestVscode.major}.${oldestVscode.minor} (Help > About) to NODE_OF_VSCODE`);
    assert.ok(semver.satisfies(hostNode, declared), `VS Code ${oldestVscode.version} runs Node ${hostNode}, outside engines.node ${declared}`);
  });

  it('@types/vscode is the oldest VS Code engines.vscode admits: no API newer than that type-checks', () => {
    const types = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).devDependencies['@types/vscode'] as string;
    assert.equal(`${semver.major(types)}.${semver.minor(types)}`, `${oldestVscode.major}.${oldestVscode.minor}`, `@types/vscode ${types} against engines.vscode ${vscodeRange}`);
  });

  it('the extension calls VS Code through @types/vscode: no API declared by hand, no cast of the vscode namespace around the types', () => {
    const dir = path.join(ROOT, 'src', 'vscode');
    const files = [...fs.readdirSync(dir).filter((n) => n.endsWith('.ts')).map((n) => path.join(dir, n)), path.join(ROOT, 'src', 'extension.ts')];
    const found: string[] = [];
    for (const f of files) {
      const code = fs.readFileSync(f, 'utf8');
      // `vscode.lm as unknown as {…}` or `(vscode as any).X`: an API the types lack, typed here instead (engines.vscode is then too old).
      for (const m of code.matchAll(/\bvscode(?:\.\w+)*\)?\s+as\s+(?:unknown|any)\b|declare\s+module\s+['"]vscode['"]/g)) found.push(`${path.relative(ROOT, f)}: ${m[0]}`);
    }
    assert.deepEqual(found, []);
  });

  it('every runtime dependency, direct or transitive, declares support for the minimum Node, the oldest VS Code host and this Node', () => {
    const hostNode = NODE_OF_VSCODE[`${oldestVscode.major}.${oldestVscode.minor}`] ?? minimumNode;
    const nodes = [
      [minimumNode, 'the declared minimum'],
      [hostNode, `VS Code ${oldestVscode.major}.${oldestVscode.minor}'s`],
      [process.versions.node, 'this process'],
    ] as const;
    const { packages, missing } = runtimeClosure();
    assert.deepEqual(missing, [], 'runtime dependencies not installed: run npm ci');
    for (const name of Object.keys(project.dependencies ?? {})) {
      assert.ok([...packages.values()].some((m) => m.name === name), `${name} was not found in node_modules`);
    }
    const misfits: string[] = [];
    for (const m of packages.values()) {
      const wanted = m.engines?.node;
      if (!wanted) continue;
      for (const [node, whose] of nodes) {
        if (!semver.satisfies(node, wanted)) misfits.push(`${m.name}@${m.version} wants node ${wanted}: ${whose} Node ${node} is outside it`);
      }
    }
    assert.deepEqual(misfits, []);
  });
});
