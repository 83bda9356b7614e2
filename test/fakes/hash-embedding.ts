/**
 * Hash n-gram embeddings with real structure for the scale bench: the features of the fake embedder
 * (test/fakes/openai-server.ts fakeEmbedding: lower-cased words, and CJK characters with their bigrams),
 * each hashed to a dimension with a sign, L2-normalised. Texts that share words land near each other, as
 * with a real model's embeddings and unlike random vectors. FNV-1a instead of md5: a million paragraphs
 * take about a minute instead of twelve.
 */
const WORD = /[a-z0-9]+|[\u3400-\u9fff]/gu;
const HAN = /^[\u3400-\u9fff]$/u;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // A final mix, so that similar strings spread over the low bits too.
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

export function hashEmbedding(text: string, dims: number): Float32Array {
  const v = new Float64Array(dims);
  const toks = text.toLowerCase().match(WORD) ?? [];
  const add = (f: string) => {
    const h = fnv1a(f);
    v[h % dims]! += h & 0x80000000 ? 1 : -1;
  };
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    add(t);
    if (HAN.test(t)) {
      const next = toks[i + 1];
      if (next && HAN.test(next)) add(t + next);
    }
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  const out = new Float32Array(dims);
  for (let j = 0; j < dims; j++) out[j] = v[j]! / norm;
  return out;
}
