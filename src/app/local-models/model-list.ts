import OpenAI from 'openai';
import { z } from 'zod';
import { DocQaError } from '../../common/errors';
import { endpointOf } from '../../common/provider-failure';
import { Redactor } from '../../common/redact';
import { LocalServer } from '../../common/served-window';
import { LocalModel, findLocalServer, listModels } from './local-server';

/** The models an endpoint offers, chat and embedding models apart, for a picker and `docqa models`. */
export const ModelListing = z.object({
  endpoint: z.string(),
  /** Ollama or LM Studio when recognised; null for any other OpenAI-compatible service. */
  server: LocalServer.nullable(),
  version: z.string().nullable(),
  chat: z.array(LocalModel),
  embedding: z.array(LocalModel),
  /** Models whose kind the service did not say (a plain OpenAI-compatible list): offered in both pickers. */
  unknown: z.array(LocalModel),
});
export type ModelListing = z.infer<typeof ModelListing>;

const bare = (id: string): LocalModel => ({ id, kind: 'unknown', loaded: false, running_context: null, model_max: null, modelfile_num_ctx: null, embedding_length: null, thinking: false, details: null });

/**
 * The models behind a base URL: a local server's own list with each model's kind and window, or the
 * OpenAI-compatible `GET /models` of any other service (with its key; kinds unknown). Failures are
 * errors with the endpoint named (`models_unavailable`).
 */
export async function modelListing(baseUrl: string, key: string, signal?: AbortSignal): Promise<ModelListing> {
  const endpoint = endpointOf(baseUrl);
  let found;
  let models: LocalModel[];
  try {
    found = await findLocalServer(baseUrl, signal);
    if (found) models = await listModels(found, signal);
    else {
      const client = new OpenAI({ apiKey: key || 'none', baseURL: baseUrl, maxRetries: 0, timeout: 15_000, logLevel: 'off' });
      models = [];
      for await (const m of client.models.list({ signal })) models.push(bare(m.id));
      models.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new DocQaError('models_unavailable', new Redactor([key]).redact(`could not list the models at ${endpoint}: ${err instanceof Error ? err.message : String(err)}`));
  }
  return {
    endpoint,
    server: found?.server ?? null,
    version: found?.version ?? null,
    chat: models.filter((m) => m.kind === 'chat'),
    embedding: models.filter((m) => m.kind === 'embedding'),
    unknown: models.filter((m) => m.kind === 'unknown'),
  };
}
