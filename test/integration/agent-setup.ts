import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { type AgentOptions, runAgent } from '../../src/harness/agent-loop';
import { Budgets } from '../../src/harness/budget';
import { ChatClient, ChatConfig } from '../../src/harness/model-client';
import { RunLimits, type Thresholds } from '../../src/harness/run-limits';
import { baselineDir, loadBundle, type PromptBundle } from '../../src/harness/prompt-bundle';
import { buildSnapshot } from '../../src/index/store/build-snapshot';
import { DataDir } from '../../src/common/data-dir';
import type { RemoteEmbeddingConfig } from '../../src/index/embed/embedding-client';
import { createIngestPool } from '../../src/index/ingest/ingest-pool';
import { DEFAULT_INGEST_OPTIONS } from '../../src/index/model';
import { type LoadedSnapshot, loadActiveSnapshot } from '../../src/index/store/snapshot-store';
import { addSources } from '../../src/index/sources/sources';
import type { SpanRecord, TraceRecord } from '../../src/shared/trace-model';
import { Tracer } from '../../src/trace/tracer';
import { FakeOpenAIServer } from '../fakes/openai-server';
import { textPdf } from '../fixtures/pdf-writer';
import { fixture, tempDir } from '../helpers';
import { preparePdfThread } from '../../src/index/ingest/ingest-worker';

// This test process parses PDFs itself, as an ingestion worker does (pdf.js runs in workers only).
preparePdfThread();

/** The last Observation the harness put into the prompt the model received. */
export function lastObservation(body: Record<string, unknown>): { tool_call_id: string | null; harness_status: string; message: string | null; payload: { blocks?: Array<{ ref: string }>; hits?: Array<{ ref: string }>; error?: { code: string; message: string; retryable: boolean }; mode?: string } | null } {
  const system = (body.messages as Array<{ content: string }>)[0]!.content;
  const lines = system.split('\n').filter((l) => l.startsWith('Observation: '));
  return JSON.parse(lines[lines.length - 1]!.slice('Observation: '.length));
}

/** The system prompt of a recorded request. */
export const systemOf = (body: Record<string, unknown>) => (body.messages as Array<{ content: string }>)[0]!.content;

/** A tool Action as a model writes it, with the rating of the previous observation when given. */
export const act = (tool: string, input: unknown, prev?: { id: string; gain: string }) =>
  `Thought: next step.\nAction: ${tool}[${JSON.stringify({ input, ...(prev ? { previous_observation: { tool_call_id: prev.id, information_gain: prev.gain } } : {}) })}]`;

/** A tracer that keeps the run's spans, and a lookup by kind. */
export function recordingTracer() {
  const records: TraceRecord[] = [];
  const tracer = new Tracer('metadata', { write: (r) => records.push(r) });
  const spans = (kind: string) => records.filter((r): r is SpanRecord => r.type === 'span' && r.kind === kind);
  return { tracer, records, spans };
}

export interface AgentSetup {
  server: FakeOpenAIServer;
  model: ChatClient;
  bundle: PromptBundle;
  zhBundle: PromptBundle;
  snap: LoadedSnapshot;
  partial: LoadedSnapshot;
  /** One run over the fixtures; `budgets` and `thresholds` (each defaulted on its own) become the run's limits. */
  run: (question: string, extra?: Partial<AgentOptions> & { budgets?: Budgets; thresholds?: Partial<Thresholds> }) => ReturnType<typeof runAgent>;
  /** A snapshot with embeddings from the fake server (its embedding config). */
  hybrid: () => Promise<{ snapshot: LoadedSnapshot; embedding: RemoteEmbeddingConfig }>;
  /** A ready snapshot of an empty folder: a collection without documents. */
  empty: () => Promise<LoadedSnapshot>;
}

/** A keyword-only snapshot of a temporary folder holding these files (name → text). */
export async function snapshotOfFiles(files: Record<string, string>): Promise<LoadedSnapshot> {
  const dir = tempDir('docqa-notes-');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return build([dir]);
}

async function build(paths: string[], embedding: RemoteEmbeddingConfig | null = null): Promise<LoadedSnapshot> {
  const dir = new DataDir(tempDir());
  await addSources(dir, paths);
  await buildSnapshot(dir, { ingest: DEFAULT_INGEST_OPTIONS, embedding: embedding ?? { provider: 'none' }, embeddingApiKey: '', pool: createIngestPool(DEFAULT_INGEST_OPTIONS, null) });
  return (await loadActiveSnapshot(dir))!;
}

/** A fake OpenAI-compatible server, a chat client on it, the baselines, and snapshots of the fixtures. */
export async function agentSetup(): Promise<AgentSetup> {
  const server = await new FakeOpenAIServer().start();
  const model = new ChatClient(ChatConfig.parse({ base_url: server.baseURL, idle_timeout_ms: 2000, total_timeout_ms: 10_000 }), 'sk-test');
  const bundle = await loadBundle(path.join(baselineDir(), 'baseline-en'));
  const zhBundle = await loadBundle(path.join(baselineDir(), 'baseline-zh'));
  const snap = await build([fixture('markdown'), fixture('pdf', 'photosynthesis-en.pdf')]);
  const mixed = tempDir('docqa-partial-');
  fs.copyFileSync(fixture('markdown', 'cell-notes.md'), path.join(mixed, 'cells.md'));
  fs.copyFileSync(fixture('bad', 'broken.pdf'), path.join(mixed, 'lecture.pdf'));
  // Indexed without its page 2 (glyph codes only): a partial document, named with its page.
  fs.writeFileSync(path.join(mixed, 'handout.pdf'), textPdf([{ lines: [{ text: 'Cells divide by mitosis.', y: 700 }] }, { lines: [], unmapped: [{ y: 700, glyphs: 200 }] }]));
  const partial = await build([mixed]);
  let hybrid: { snapshot: LoadedSnapshot; embedding: RemoteEmbeddingConfig } | null = null;
  let empty: LoadedSnapshot | null = null;
  return {
    server,
    model,
    bundle,
    zhBundle,
    snap,
    partial,
    run: (question, { budgets, thresholds, ...extra } = {}) => runAgent({ question, snapshot: snap, model, bundle, run: RunLimits.parse({ budgets, thresholds }), ...extra }),
    hybrid: async () => {
      if (!hybrid) {
        const embedding = { provider: 'openai-compatible', base_url: server.baseURL, model: 'fake', dimensions: 16, batch_size: 64, concurrency: 4, timeout_ms: 5000, max_retry_after_ms: 30_000, retry_delay_ms: 50 } as const satisfies RemoteEmbeddingConfig;
        hybrid = { snapshot: await build([fixture('markdown', 'cell-notes.md')], embedding), embedding };
      }
      return hybrid;
    },
    empty: async () => (empty ??= await build([tempDir('docqa-nothing-')])),
  };
}

/**
 * Registers the suite's hooks: the setup before its tests, and after them a check that every scripted
 * reply saw what it expected, then the server closed (closed even when that check fails).
 */
export function useAgentSetup(): () => AgentSetup {
  let t: AgentSetup | null = null;
  before(async () => {
    t = await agentSetup();
  });
  after(async () => {
    try {
      assert.deepEqual(t?.server.scriptErrors, [], 'scripted replies saw what they expected');
    } finally {
      await t?.server.close();
    }
  });
  return () => t!;
}
