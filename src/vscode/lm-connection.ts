import type { ConnectionReport } from '../app/connection-test';
import type { HostChatModel } from '../app/host-model';
import { errorMessage } from '../common/errors';
import type { Translate } from './lm-chat-model';

/** The VS Code model DocQA answers with (lm-models.ts), and the picked one VS Code no longer offers, if so. */
export type LmLookup = () => Promise<{ host: HostChatModel; missing: string | null } | null>;

/** What Test Connection sends: the smallest request that proves the model answers. */
export const LM_PING = 'Reply with OK.';

/**
 * Test Connection's chat check when `docqa.chat.provider` is "vscode": the model the person picked,
 * looked up through vscode.lm as a question would look it up, then one tiny request through it (the
 * signal ends it: a cancelled test reports nothing). Null when DocQA's own endpoint answers questions,
 * so the endpoint's own check runs instead. Free of `vscode`: lm-models.ts lends the lookup.
 */
export async function testLanguageModel(lookup: LmLookup, t: Translate, now: () => number, signal?: AbortSignal): Promise<ConnectionReport | null> {
  const base = { provider: 'chat' as const, skipped: false, endpoint: null, dimensions: null, failure: null };
  let found: Awaited<ReturnType<LmLookup>>;
  try {
    found = await lookup();
  } catch (err) {
    if (signal?.aborted) throw err;
    return { ...base, ok: false, called: null, model_requested: null, model_reported: null, latency_ms: null, detail: errorMessage(err) };
  }
  if (!found) return null;
  const { host, missing } = found;
  const called = `vscode.lm sendRequest ("${LM_PING}")`;
  const start = now();
  try {
    const r = await host.model.complete([{ role: 'user', content: LM_PING }], { signal, maxOutputTokens: 1 });
    const latency = Math.max(0, Math.round(now() - start));
    const name = r.model ?? host.name;
    const detail = missing ? t('The language model you picked ({0}) is not offered by VS Code now; questions go to {1}, which answered in {2} ms. Run “DocQA: Pick VS Code Language Model” to choose.', missing, name, latency) : t('The VS Code language model {0} answered in {1} ms.', name, latency);
    return { ...base, ok: true, called, model_requested: host.name, model_reported: name, latency_ms: latency, detail };
  } catch (err) {
    if (signal?.aborted) throw err;
    return { ...base, ok: false, called, model_requested: host.name, model_reported: null, latency_ms: Math.max(0, Math.round(now() - start)), detail: errorMessage(err) };
  }
}
