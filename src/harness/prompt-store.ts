import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { type DataDir, withStoreLock } from '../common/data-dir';
import { DocQaError, errorMessage } from '../common/errors';
import { readVersioned, writeVersioned } from '../common/json-file';
import { BundleFile, PROMPT_BUNDLE_FORMAT_VERSION, type PromptBundle, baselineDir, loadBundle } from './prompt-bundle';

/**
 * Experimental prompt bundles live in `<data>/prompts/<id>/` beside `<data>/prompts/state.json`, which
 * says which bundle `ask` uses, the promotions to roll back through, and the content hash each frozen
 * bundle was frozen with. The release baselines beside the code are read-only and always frozen.
 */
export const PROMPT_STATE_FORMAT_VERSION = 1;

export const PromptState = z.object({
  formatVersion: z.literal(PROMPT_STATE_FORMAT_VERSION),
  /** null: the release baseline for the question's language. */
  active: z.string().nullable(),
  /** What was active before each promotion, oldest first; rollback pops the last. */
  history: z.array(z.string().nullable()),
  frozen: z.record(z.string(), z.string()),
});
export type PromptState = z.infer<typeof PromptState>;

const EMPTY_STATE: PromptState = { formatVersion: PROMPT_STATE_FORMAT_VERSION, active: null, history: [], frozen: {} };
const BUNDLE_ID = /^[a-z0-9][a-z0-9._-]*$/;

const stateFile = (dir: DataDir) => path.join(dir.promptsDir, 'state.json');

export async function loadPromptState(dir: DataDir): Promise<PromptState> {
  return (await readVersioned(stateFile(dir), PROMPT_STATE_FORMAT_VERSION, PromptState)) ?? EMPTY_STATE;
}

async function baselineIds(): Promise<string[]> {
  const root = baselineDir();
  return (await fs.readdir(root)).filter((n) => existsSync(path.join(root, n, 'bundle.json'))).sort();
}

function checkId(id: string): void {
  if (!BUNDLE_ID.test(id)) throw new DocQaError('invalid_argument', `"${id}" is not a bundle id (lower-case letters, digits, ".", "_", "-")`);
}

/**
 * An older bundle lacks templates of the current format: it borrows its language's baseline ones (the
 * final round's for format 1, the conversation's for formats 1 and 2); the manifest names the lender.
 */
async function withBorrowed(bundle: PromptBundle): Promise<PromptBundle> {
  if (bundle.final && bundle.conversation) return bundle;
  const baseline = await loadBundle(path.join(baselineDir(), `baseline-${bundle.language}`));
  return { ...bundle, final: bundle.final ?? baseline.final, conversation: bundle.conversation ?? baseline.conversation };
}

/** A bundle by id (baselines first), refusing a frozen bundle whose content changed since it was frozen. */
export async function resolveBundle(dir: DataDir, id: string): Promise<PromptBundle> {
  checkId(id);
  if ((await baselineIds()).includes(id)) return withBorrowed(await loadBundle(path.join(baselineDir(), id)));
  const folder = path.join(dir.promptsDir, id);
  if (!existsSync(path.join(folder, 'bundle.json'))) throw new DocQaError('prompt_bundle_missing', `no prompt bundle "${id}" (see \`docqa prompts list\`)`);
  const bundle = await loadBundle(folder);
  if (bundle.id !== id) throw new DocQaError('prompt_bundle_invalid', `${folder}/bundle.json says its id is "${bundle.id}", not "${id}"`);
  const frozen = (await loadPromptState(dir)).frozen[id];
  if (frozen && frozen !== bundle.hash) {
    throw new DocQaError('prompt_bundle_modified', `prompt bundle ${id} was frozen with content ${frozen.slice(0, 12)} but now hashes to ${bundle.hash.slice(0, 12)}; a frozen bundle cannot change: make a new one with \`docqa prompts new --from ${id}\``);
  }
  return withBorrowed(bundle);
}

/** The bundle `ask` uses: `explicit` if given, else the promoted one, else the baseline for the question's language. */
export async function activeBundle(dir: DataDir, lang: 'zh' | 'en', explicit?: string): Promise<PromptBundle> {
  if (explicit) return resolveBundle(dir, explicit);
  const state = await loadPromptState(dir);
  return resolveBundle(dir, state.active ?? `baseline-${lang}`);
}

export interface BundleListing {
  id: string;
  version: string;
  language: 'zh' | 'en';
  parent: string | null;
  hash: string;
  origin: 'baseline' | 'experimental';
  frozen: boolean;
  active: boolean;
  path: string;
  /** The template file to read or edit (null when the bundle cannot be loaded). */
  template: string | null;
  /** Set when the bundle cannot be loaded or changed after freezing. */
  problem: string | null;
}

export async function listBundles(dir: DataDir): Promise<BundleListing[]> {
  const state = await loadPromptState(dir);
  const out: BundleListing[] = [];
  for (const id of await baselineIds()) {
    const b = await loadBundle(path.join(baselineDir(), id));
    out.push({ id, version: b.version, language: b.language, parent: b.parent, hash: b.hash, origin: 'baseline', frozen: true, active: state.active === id, path: path.join(baselineDir(), id), template: path.join(baselineDir(), id, b.template), problem: null });
  }
  let names: string[] = [];
  try {
    names = (await fs.readdir(dir.promptsDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new DocQaError('store_io', `cannot list ${dir.promptsDir}: ${errorMessage(err)}`);
  }
  for (const id of names) {
    const folder = path.join(dir.promptsDir, id);
    try {
      const b = await loadBundle(folder);
      const frozen = state.frozen[id];
      out.push({ id, version: b.version, language: b.language, parent: b.parent, hash: b.hash, origin: 'experimental', frozen: Boolean(frozen), active: state.active === id, path: folder, template: path.join(folder, b.template), problem: frozen && frozen !== b.hash ? 'changed after it was frozen' : null });
    } catch (err) {
      out.push({ id, version: '?', language: 'en', parent: null, hash: '', origin: 'experimental', frozen: Boolean(state.frozen[id]), active: state.active === id, path: folder, template: null, problem: errorMessage(err) });
    }
  }
  return out;
}

/** Copies a bundle into the data directory under a new id, to be edited; its parent is the source. */
export async function newBundle(dir: DataDir, from: string, id?: string): Promise<BundleListing> {
  const source = await resolveBundle(dir, from);
  return withStoreLock(
    dir,
    async () => {
      await fs.mkdir(dir.promptsDir, { recursive: true });
      const baselines = await baselineIds();
      const taken = (candidate: string) => baselines.includes(candidate) || existsSync(path.join(dir.promptsDir, candidate));
      let newId = id;
      if (newId === undefined) {
        for (let n = 1; ; n++) {
          const candidate = `${from}-exp${n}`;
          if (!taken(candidate)) {
            newId = candidate;
            break;
          }
        }
      }
      checkId(newId);
      if (taken(newId)) throw new DocQaError('invalid_argument', `a prompt bundle "${newId}" already exists`);
      const folder = path.join(dir.promptsDir, newId);
      await fs.mkdir(folder);
      // A copy is always of the current format: an older source's borrowed templates become its own, and
      // its templates get the {conversation} line where it was placed when they loaded.
      const finalFile = source.final_template && source.final_template !== source.template ? source.final_template : 'final.md';
      const conversationFile = source.conversation_template ?? (source.template === 'conversation.md' || finalFile === 'conversation.md' ? 'conversation-section.md' : 'conversation.md');
      const meta: BundleFile = { formatVersion: PROMPT_BUNDLE_FORMAT_VERSION, id: newId, version: source.version, parent: source.id, language: source.language, template: source.template, final_template: finalFile, conversation_template: conversationFile, description: `experimental copy of ${source.id}` };
      await fs.writeFile(path.join(folder, source.template), source.text);
      await fs.writeFile(path.join(folder, finalFile), source.final!.text);
      await fs.writeFile(path.join(folder, conversationFile), source.conversation!.text);
      await writeVersioned(path.join(folder, 'bundle.json'), meta);
      return (await listBundles(dir)).find((b) => b.id === newId)!;
    },
    'prompts',
  );
}

async function updateState(dir: DataDir, fn: (s: PromptState) => Promise<PromptState> | PromptState): Promise<PromptState> {
  return withStoreLock(
    dir,
    async () => {
      await fs.mkdir(dir.promptsDir, { recursive: true });
      const next = await fn(structuredClone(await loadPromptState(dir)));
      await writeVersioned(stateFile(dir), next);
      return next;
    },
    'prompts',
  );
}

/** Freezes a bundle at its current content: from now on a change makes it unusable (baselines are always frozen). */
export async function freezeBundle(dir: DataDir, id: string): Promise<PromptBundle> {
  const bundle = await resolveBundle(dir, id);
  if ((await baselineIds()).includes(id)) return bundle;
  await updateState(dir, (s) => {
    s.frozen[id] ??= bundle.hash;
    return s;
  });
  return bundle;
}

/** Makes a bundle the one `ask` uses (freezing it first); the previous choice can be restored by rollback. */
export async function promoteBundle(dir: DataDir, id: string): Promise<PromptState> {
  await freezeBundle(dir, id);
  return updateState(dir, (s) => {
    if (s.active === id) return s;
    s.history.push(s.active);
    s.active = id;
    return s;
  });
}

/** Restores what was active before the last promotion. */
export async function rollbackBundle(dir: DataDir): Promise<PromptState> {
  return updateState(dir, (s) => {
    if (s.history.length === 0) throw new DocQaError('invalid_argument', `nothing to roll back: ${s.active ? `${s.active} is the first promoted bundle` : 'the release baselines are active'}`);
    s.active = s.history.pop()!;
    return s;
  });
}
