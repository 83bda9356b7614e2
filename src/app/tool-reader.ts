import { DataDir } from '../common/data-dir';
import { DATA_LAYOUT_VERSION, readLayout } from '../common/data-layout';
import { errorMessage } from '../common/errors';
import { isLoopback } from '../common/provider-failure';
import { type RemoteEmbeddingConfig, endpointFamily } from '../index/embed/embedding-client';
import { SnapshotLru } from '../index/store/snapshot-lru';
import { readActiveId } from '../index/store/snapshot-store';
import { queryEmbedderFor } from '../tools/query-embedder';
import { runTool } from '../tools/registry';
import { type SnapshotHandle, openSnapshotHandle } from '../tools/snapshot-handle';
import { type QueryEmbedder, type ToolName, type ToolPayload, errorPayload } from '../tools/tool';
import { withSpots } from './block-spots';
import { type AppSettings, CLI_WORDS, type HostWords, type KeyProvider } from './settings';

/** One call's outcome: the payload (blocks with their spots), the snapshot that answered, and what the reader should know about how. */
export interface ToolCallResult {
  payload: ToolPayload;
  snapshot_id: string | null;
  /** Why search_blocks searched a snapshot with vectors by keywords alone (no usable embedding endpoint); null otherwise. */
  note: string | null;
}

export interface ToolReaderOptions {
  dataDir: string;
  settings: AppSettings;
  keys: KeyProvider;
  words?: HostWords;
}

/** How a search on this snapshot embeds its query: with the configured endpoint, or by keywords alone and why. */
type SearchPlan = { embedQuery?: QueryEmbedder; keywordOnly: false } | { keywordOnly: true; note: string };

/**
 * The five tools for a reader outside DocQA (the MCP server), over a data directory that other DocQA
 * processes may be building in at the same time. It writes nothing but the pin that keeps a snapshot
 * from being deleted while a call reads it: no layout migration (a directory at an older layout is
 * answered with collection_unavailable, saying how to upgrade it), no sources, no traces. Each call
 * reads the active snapshot as it is when the call starts, pinned to the end, so a snapshot activated
 * meanwhile is seen by the next call and never half by this one.
 */
export class ToolReader {
  readonly dir: DataDir;
  private readonly lru: SnapshotLru;
  private readonly words: HostWords;

  constructor(private readonly o: ToolReaderOptions) {
    this.dir = new DataDir(o.dataDir);
    this.lru = new SnapshotLru(this.dir, 2);
    this.words = o.words ?? CLI_WORDS;
  }

  async call(name: ToolName, input: unknown, signal?: AbortSignal): Promise<ToolCallResult> {
    const refused = await this.layoutRefusal();
    if (refused) return { payload: errorPayload('collection_unavailable', refused), snapshot_id: null, note: null };
    let handle: SnapshotHandle | null;
    try {
      handle = await this.pinActive();
    } catch (err) {
      return { payload: errorPayload('collection_unavailable', `the active snapshot of ${this.dir.root} cannot be read: ${errorMessage(err)}`, true), snapshot_id: null, note: null };
    }
    if (!handle) return { payload: errorPayload('collection_unavailable', `no snapshot is active in ${this.dir.root}; build one with ${this.words.buildCommand}`), snapshot_id: null, note: null };
    try {
      const plan = await this.searchPlan(handle);
      const payload = await runTool(name, input, { snapshot: handle.snapshot, signal, ...(plan.keywordOnly ? { keywordOnly: true } : { embedQuery: plan.embedQuery }) });
      const note = plan.keywordOnly && name === 'search_blocks' && !payload.error ? plan.note : null;
      return { payload: withSpots(payload, handle.snapshot) as ToolPayload, snapshot_id: handle.id, note };
    } finally {
      await handle.release();
    }
  }

  /** Words for a directory this reader must not read (a newer DocQA's layout, or an older one it would have to migrate); null when it can. */
  private async layoutRefusal(): Promise<string | null> {
    try {
      const { layout, marker } = await readLayout(this.dir);
      // No marker and no active snapshot: nothing was built here yet (the call says so); with one, an old layout.
      if (!marker && !(await readActiveId(this.dir).catch(() => null))) return null;
      if (layout < DATA_LAYOUT_VERSION) return `the data directory ${this.dir.root} is at layout ${layout}, older than this DocQA's (${DATA_LAYOUT_VERSION}); this server only reads: run any docqa command on it once (or open DocQA in VS Code) to upgrade it`;
      return null;
    } catch (err) {
      return errorMessage(err);
    }
  }

  /**
   * Pins the active snapshot and loads it. A build in another process may activate a newer snapshot and
   * retention remove the old one between reading the pointer and pinning: the load then fails, the
   * pointer has moved, and the new active snapshot is read instead.
   */
  private async pinActive(): Promise<SnapshotHandle | null> {
    for (let attempt = 0; ; attempt++) {
      const id = await readActiveId(this.dir);
      if (!id) return null;
      try {
        return await openSnapshotHandle(this.dir, this.lru, id);
      } catch (err) {
        if (attempt >= 2 || (await readActiveId(this.dir)) === id) throw err;
      }
    }
  }

  /** The query embedding for search_blocks: the configured endpoint when it is the snapshot's model and has its key (or is on this machine), else keyword-only, said. */
  private async searchPlan(handle: SnapshotHandle): Promise<SearchPlan> {
    const e = handle.snapshot.manifest.embedding;
    if (e.provider === 'none' || handle.snapshot.vectors === null) return { keywordOnly: false };
    const names = this.words.settings.embedding;
    const built = `this snapshot has vectors from ${e.model} at ${e.family}`;
    const c = this.o.settings.embedding;
    if (c.provider === 'none') return { keywordOnly: true, note: `${built}, but no embedding endpoint is configured for this server (${names.base_url}, ${names.model}): searched by keywords alone` };
    const config = c as RemoteEmbeddingConfig;
    const family = endpointFamily(config.base_url);
    if (family !== e.family || config.model !== e.model) return { keywordOnly: true, note: `${built}, but the configured embedding model is ${config.model} at ${family}: searched by keywords alone` };
    const key = await this.o.keys.embedding();
    if (!key && !isLoopback(config.base_url)) return { keywordOnly: true, note: `${built}, but no embedding key is set (${names.key}): searched by keywords alone` };
    return { keywordOnly: false, embedQuery: queryEmbedderFor(e, config, key ?? '') };
  }
}
