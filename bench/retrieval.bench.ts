import fs from 'node:fs';
import path from 'node:path';
import { Bm25Index, buildBm25, BM25_B, BM25_K1 } from '../src/index/bm25-index';
import { hybridSearch, topK } from '../src/index/hybrid-search';
import { keywordTokens } from '../src/index/keyword-tokenizer';
import { VectorIndex, normalizeRows } from '../src/index/vector-index';
import { fakeEmbedding } from '../test/fakes/openai-server';
import type { BenchRow } from './report';

const QA = path.join(__dirname, '..', '..', 'shared', 'corpus', 'qa');
const QUESTIONS = 1000;

interface Squad {
  data: Array<{ paragraphs: Array<{ context: string; qas: Array<{ question: string }> }> }>;
}

function load(file: string): { paragraphs: string[]; questions: Array<{ q: string; gold: number }> } {
  const data = JSON.parse(fs.readFileSync(path.join(QA, file), 'utf8')) as Squad;
  const paragraphs: string[] = [];
  const questions: Array<{ q: string; gold: number }> = [];
  for (const article of data.data)
    for (const p of article.paragraphs) {
      const gold = paragraphs.push(p.context) - 1;
      for (const qa of p.qas) questions.push({ q: qa.question, gold });
    }
  // A fixed, evenly spread sample: the same questions on every run.
  const step = questions.length / QUESTIONS;
  return { paragraphs, questions: Array.from({ length: Math.min(QUESTIONS, questions.length) }, (_, i) => questions[Math.floor(i * step)]!) };
}

/** Textbook Okapi BM25 (k1 = 1.2, b = 0.75), written plainly from the formula as the same-run reference. */
function textbookRanker(paragraphs: string[]): (q: string) => number[] {
  const docs = paragraphs.map((p) => {
    const tf = new Map<string, number>();
    const toks = keywordTokens(p);
    for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { tf, len: toks.length };
  });
  const N = docs.length;
  const avgdl = docs.reduce((s, d) => s + d.len, 0) / N;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  return (q) => {
    const terms = [...new Set(keywordTokens(q))];
    const scores = new Float64Array(N);
    docs.forEach((d, i) => {
      let s = 0;
      for (const t of terms) {
        const f = d.tf.get(t);
        if (!f) continue;
        const n = df.get(t)!;
        s += Math.log(1 + (N - n + 0.5) / (n + 0.5)) * ((f * (BM25_K1 + 1)) / (f + BM25_K1 * (1 - BM25_B + (BM25_B * d.len) / avgdl)));
      }
      scores[i] = s;
    });
    return topK(scores, 5, 0);
  };
}

export function retrievalBench(): BenchRow[] {
  const rows: BenchRow[] = [];
  if (!fs.existsSync(QA)) {
    console.log(`(retrieval quality skipped: ${QA} not found)`);
    return rows;
  }
  for (const [name, file] of [
    ['zh.cmrc2018', 'cmrc2018-dev.json'],
    ['en.squad1.1', 'squad-dev-v1.1.json'],
  ] as const) {
    const { paragraphs, questions } = load(file);
    const index = new Bm25Index(buildBm25(paragraphs));
    const textbook = textbookRanker(paragraphs);
    const dims = 256;
    const matrix = new Float32Array(paragraphs.length * dims);
    paragraphs.forEach((p, i) => matrix.set(fakeEmbedding(p, dims), i * dims));
    normalizeRows(matrix, dims);
    const vectors = new VectorIndex(matrix, dims);
    let ours = 0;
    let reference = 0;
    let hybrid = 0;
    for (const { q, gold } of questions) {
      if (topK(index.score(q), 5, 0).includes(gold)) ours++;
      if (textbook(q).includes(gold)) reference++;
      if (hybridSearch(index, vectors, q, Float32Array.from(fakeEmbedding(q, dims)), 5).some((h) => h.block === gold)) hybrid++;
    }
    const n = questions.length;
    rows.push({ name: `retrieval.${name}.keyword_recall@5`, value: ours / n, unit: 'recall', floor: reference / n, ratio: reference ? ours / reference : null, target: '>= 1' });
    rows.push({ name: `retrieval.${name}.hybrid_fake_embedder_recall@5 (smoke)`, value: hybrid / n, unit: 'recall', floor: null, ratio: null });
  }
  return rows;
}
