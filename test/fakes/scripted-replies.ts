/**
 * What the fake OpenAI-compatible server answers with (test/fakes/openai-server.ts), as pure functions:
 * its deterministic embedding, the harness's Observations read back from a request, the placeholders of
 * a scripted reply, and the tiny scripted agent of `auto` mode.
 */
import crypto from 'node:crypto';

const WORD = /[a-z0-9]+|[\u3400-\u9fff]/giu;

/**
 * Deterministic embedding of a text: hashed bag of words and CJK character bigrams, L2-normalised. Texts
 * sharing words land near each other, which is all retrieval tests need.
 */
export function fakeEmbedding(text: string, dims: number): number[] {
  const v = new Float64Array(dims);
  const toks = (text.toLowerCase().match(WORD) ?? []) as string[];
  const feats: string[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (/^[\u3400-\u9fff]$/u.test(t)) {
      feats.push(t);
      const next = toks[i + 1];
      if (next && /^[\u3400-\u9fff]$/u.test(next)) feats.push(t + next);
    } else feats.push(t);
  }
  for (const f of feats) {
    const h = crypto.createHash('md5').update(f).digest();
    const idx = h.readUInt32LE(0) % dims;
    v[idx]! += h[4]! & 1 ? 1 : -1;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Array.from(v, (x) => x / norm);
}

/** The Observations in a request's system prompt, oldest first (the harness writes one per line). */
export function observationsOf(body: Record<string, unknown>): Array<{ harness_status?: string; tool_call_id?: string | null; payload?: { blocks?: Array<{ ref: string; text: string }>; hits?: Array<{ ref: string }> } | null }> {
  const system = String((body.messages as Array<{ content?: unknown }> | undefined)?.[0]?.content ?? '');
  return system
    .split('\n')
    .filter((l) => l.startsWith('Observation: '))
    .map((l) => {
      try {
        return JSON.parse(l.slice('Observation: '.length));
      } catch {
        return {};
      }
    });
}

/**
 * A scripted reply's placeholders: `{{ref:N}}` is the N-th block ref (1-based) of the last Observation,
 * `{{question}}` the user's question. Lets a hand-written script cite what the tools really returned.
 */
export function fillPlaceholders(text: string, body: Record<string, unknown>): string {
  const last = observationsOf(body).at(-1);
  const refs = [...(last?.payload?.blocks ?? []), ...(last?.payload?.hits ?? [])].map((b) => b.ref);
  const question = String((body.messages as Array<{ content?: unknown }> | undefined)?.[1]?.content ?? '');
  return text.replace(/\{\{ref:(\d+)\}\}/g, (_m, n: string) => refs[Number(n) - 1] ?? 'no-such-ref').replace(/\{\{question\}\}/g, question);
}

/**
 * A tiny deterministic agent, for demos and end-to-end runs without a real model: it searches for the
 * question, then answers with the first sentence of each of the first two blocks it found, citing them;
 * with nothing found (or in the final round, which offers no tools) it says so. It is a script, not a model.
 */
export function autoReply(body: Record<string, unknown>): string {
  const question = String((body.messages as Array<{ content?: unknown }> | undefined)?.[1]?.content ?? '');
  const zh = /[\u3400-\u9fff]/u.test(question);
  const obs = observationsOf(body);
  const system = String((body.messages as Array<{ content?: unknown }> | undefined)?.[0]?.content ?? '');
  const finalRound = !system.includes('<tools>');
  const last = obs.at(-1);
  const blocks = last?.payload?.blocks ?? [];
  if (obs.length === 0 && !finalRound) return `Thought: ${zh ? '先在笔记中搜索这个问题。' : 'Search the notes for the question first.'}\nAction: search_blocks[${JSON.stringify({ input: { query: question } })}]`;
  if (blocks.length === 0) return `Thought: ${zh ? '没有找到相关内容。' : 'Nothing relevant was found.'}\nAction: Finish[${zh ? '笔记中没有找到与这个问题相关的内容。' : 'I found nothing about this in your notes.'}]`;
  const sentence = (t: string) => (t.replace(/\s+/g, ' ').match(/^.*?[.!?。！？](?=\s|$)/u)?.[0] ?? t.replace(/\s+/g, ' ').slice(0, 160)).replace(/[[\]]/g, '');
  const lines = blocks.slice(0, 2).map((b) => `${sentence(b.text)}【来源:${b.ref}】`);
  return `Thought: ${zh ? '找到了相关的块，可以回答。' : 'The blocks answer it.'}\nAction: Finish[${zh ? '根据你的笔记：' : 'From your notes: '}${lines.join(zh ? '' : ' ')}]`;
}
