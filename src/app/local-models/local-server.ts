import { z } from 'zod';
import type { LocalServer } from '../../common/served-window';
import { mayProbe, probe, serverRoot } from './local-http';

/** A local model server found behind a base URL. */
export interface FoundServer {
  server: LocalServer;
  /** Its root (the base URL without `/v1`), where its own API lives. */
  root: string;
  /** Ollama's version, when it said. */
  version: string | null;
}

/** What DocQA needs to know of one model on a local server. */
export const LocalModel = z.object({
  id: z.string(),
  /** Chat and embedding models apart (Ollama's capabilities, LM Studio's type). */
  kind: z.enum(['chat', 'embedding', 'unknown']),
  /** In memory now (Ollama `/api/ps`, LM Studio `state`). */
  loaded: z.boolean(),
  /** The window it runs with now (Ollama `/api/ps` context_length, LM Studio loaded_context_length). */
  running_context: z.number().int().nullable(),
  /** Its trained maximum (Ollama `model_info.<arch>.context_length`, LM Studio max_context_length). */
  model_max: z.number().int().nullable(),
  /** Ollama: the Modelfile's num_ctx, the window it is loaded with when a request names none. */
  modelfile_num_ctx: z.number().int().nullable(),
  /** Ollama: the vector size of an embedding model (`model_info.<arch>.embedding_length`). */
  embedding_length: z.number().int().nullable(),
  /** Ollama: whether the model can think (its `thinking` capability). */
  thinking: z.boolean(),
  /** Size, quantization and the like, for a picker. */
  details: z.string().nullable(),
});
export type LocalModel = z.infer<typeof LocalModel>;

const PROBE_MS = 3000;
const SHOW_MS = 15_000;

const OllamaVersion = z.object({ version: z.string() });
const OllamaTags = z.object({ models: z.array(z.object({ name: z.string(), details: z.object({ parameter_size: z.string().optional(), quantization_level: z.string().optional() }).partial().optional() })) });
const OllamaShow = z.object({
  parameters: z.string().optional(),
  capabilities: z.array(z.string()).optional(),
  model_info: z.record(z.string(), z.unknown()).optional(),
  details: z.object({ parameter_size: z.string().optional(), quantization_level: z.string().optional() }).partial().optional(),
});
const OllamaPs = z.object({ models: z.array(z.object({ name: z.string(), model: z.string().optional(), context_length: z.number().int().optional() })).nullable() });
const LmStudioModels = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      type: z.string().optional(),
      state: z.string().optional(),
      max_context_length: z.number().int().optional(),
      loaded_context_length: z.number().int().optional(),
      quantization: z.string().optional(),
      arch: z.string().optional(),
    }),
  ),
});

/**
 * Which local model server answers behind a base URL, if any: Ollama (`GET /api/version`), else LM
 * Studio (`GET /api/v0/models`). Only for a host on this machine or a private network (mayProbe); a
 * server that does not answer, or answers something else, is no local server (null).
 */
export async function findLocalServer(baseUrl: string, signal?: AbortSignal): Promise<FoundServer | null> {
  if (!mayProbe(baseUrl)) return null;
  const root = serverRoot(baseUrl);
  const tryJson = async (path: string) => {
    try {
      const r = await probe(`${root}${path}`, { timeoutMs: PROBE_MS, signal });
      return r.status === 200 ? r.json : null;
    } catch (err) {
      if (signal?.aborted) throw err;
      return null;
    }
  };
  const v = OllamaVersion.safeParse(await tryJson('/api/version'));
  if (v.success) return { server: 'ollama', root, version: v.data.version };
  const lm = LmStudioModels.safeParse(await tryJson('/api/v0/models'));
  if (lm.success && lm.data.data.every((m) => m.type !== undefined || m.state !== undefined)) return { server: 'lmstudio', root, version: null };
  return null;
}

/** Ollama names a model without a tag as `:latest`. */
export const ollamaName = (name: string) => (name.includes(':') ? name : `${name}:latest`);

function infoNumber(info: Record<string, unknown> | undefined, field: string): number | null {
  if (!info) return null;
  const arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : null;
  const exact = arch ? info[`${arch}.${field}`] : undefined;
  const any = exact ?? Object.entries(info).find(([k]) => k.endsWith(`.${field}`))?.[1];
  return typeof any === 'number' && Number.isInteger(any) && any > 0 ? any : null;
}

async function ollamaRunning(root: string, signal?: AbortSignal): Promise<Map<string, number | null>> {
  const r = await probe(`${root}/api/ps`, { timeoutMs: PROBE_MS, signal });
  const ps = OllamaPs.safeParse(r.json);
  const running = new Map<string, number | null>();
  if (r.status === 200 && ps.success) for (const m of ps.data.models ?? []) running.set(ollamaName(m.model ?? m.name), m.context_length ?? null);
  return running;
}

async function ollamaShow(root: string, name: string, running: Map<string, number | null>, signal?: AbortSignal, fromTags?: z.infer<typeof OllamaTags>['models'][number]['details']): Promise<LocalModel | null> {
  const r = await probe(`${root}/api/show`, { method: 'POST', body: { model: name }, timeoutMs: SHOW_MS, signal });
  if (r.status === 404) return null;
  const show = OllamaShow.safeParse(r.json);
  if (r.status !== 200 || !show.success) throw new Error(`Ollama's /api/show answered HTTP ${r.status} for ${name}`);
  const s = show.data;
  const caps = s.capabilities ?? [];
  const numCtx = s.parameters?.match(/^\s*num_ctx\s+(\d+)\s*$/m);
  const d = s.details ?? fromTags;
  const key = ollamaName(name);
  return {
    id: name,
    kind: caps.includes('embedding') ? 'embedding' : caps.includes('completion') ? 'chat' : 'unknown',
    loaded: running.has(key),
    running_context: running.get(key) ?? null,
    model_max: infoNumber(s.model_info, 'context_length'),
    modelfile_num_ctx: numCtx ? Number(numCtx[1]) : null,
    embedding_length: infoNumber(s.model_info, 'embedding_length'),
    thinking: caps.includes('thinking'),
    details: [d?.parameter_size, d?.quantization_level].filter(Boolean).join(' ') || null,
  };
}

function lmStudioModel(m: z.infer<typeof LmStudioModels>['data'][number]): LocalModel {
  const loaded = m.state === 'loaded';
  return {
    id: m.id,
    kind: m.type === 'embeddings' ? 'embedding' : m.type === 'llm' || m.type === 'vlm' ? 'chat' : 'unknown',
    loaded,
    running_context: loaded ? (m.loaded_context_length ?? null) : null,
    model_max: m.max_context_length ?? null,
    modelfile_num_ctx: null,
    embedding_length: null,
    thinking: false,
    details: [m.arch, m.quantization].filter(Boolean).join(' ') || null,
  };
}

async function lmStudioModels(root: string, signal?: AbortSignal): Promise<LocalModel[]> {
  const r = await probe(`${root}/api/v0/models`, { timeoutMs: PROBE_MS, signal });
  const list = LmStudioModels.safeParse(r.json);
  if (r.status !== 200 || !list.success) throw new Error(`LM Studio's /api/v0/models answered HTTP ${r.status}`);
  return list.data.data.map(lmStudioModel);
}

/** One model as the server describes it now; null when the server does not have it. */
export async function describeModel(found: FoundServer, model: string, signal?: AbortSignal): Promise<LocalModel | null> {
  if (found.server === 'ollama') return ollamaShow(found.root, model, await ollamaRunning(found.root, signal), signal);
  return (await lmStudioModels(found.root, signal)).find((m) => m.id === model) ?? null;
}

/** Every model the server has, sorted by name (Ollama: one /api/show each, for its kind and window). */
export async function listModels(found: FoundServer, signal?: AbortSignal): Promise<LocalModel[]> {
  let models: LocalModel[];
  if (found.server === 'lmstudio') models = await lmStudioModels(found.root, signal);
  else {
    const r = await probe(`${found.root}/api/tags`, { timeoutMs: PROBE_MS, signal });
    const tags = OllamaTags.safeParse(r.json);
    if (r.status !== 200 || !tags.success) throw new Error(`Ollama's /api/tags answered HTTP ${r.status}`);
    const running = await ollamaRunning(found.root, signal);
    models = [];
    for (const t of tags.data.models) {
      const m = await ollamaShow(found.root, t.name, running, signal, t.details);
      if (m) models.push(m);
    }
  }
  return models.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
