import fs from 'node:fs';
import path from 'node:path';
import { countTokens } from '../src/common/tokenizer';
import { EmbeddingCache, embeddingKey } from '../src/index/embed/embedding-cache';
import { endpointFamily } from '../src/index/embed/embedding-client';
import type { IngestPool } from '../src/index/ingest/ingest-pool';
import { hashEmbedding } from '../test/fakes/hash-embedding';
import { qaParagraphs } from './fixtures';

/**
 * The scale bench's shelf: textbooks as Markdown files of 500 blocks each (10 chapters × 5 sections ×
 * 10 paragraphs), a million blocks being 2,000 books. Every paragraph is a QA paragraph (SQuAD, CMRC
 * 2018) of 60–350 tokens (so the blocker keeps it as one block) followed by the first sentence of
 * another: no two blocks of a shelf alike, every one with real n-gram structure for the hash embeddings.
 */
export const BLOCKS_PER_BOOK = 500;
const CHAPTERS = 10;
const SECTIONS = 5;
const PARAGRAPHS = BLOCKS_PER_BOOK / CHAPTERS / SECTIONS;

export interface Shelf {
  paragraphs: string[];
  sentences: string[];
  questions: string[];
}

/** Paragraphs that make one block each, sentences to vary them with, and questions to ask. */
export function shelf(): Shelf {
  const qa = qaParagraphs();
  if (qa.paragraphs.length === 0) throw new Error('the scale bench needs the QA corpus in ../shared/corpus/qa');
  // Markdown would read a leading "1." or "#" as a list or a heading: such paragraphs are left out.
  const paragraphs = qa.paragraphs.filter((p) => !/^\s*([#>*+-]|\d+[.)])/.test(p) && !p.includes('\n')).filter((p) => {
    const n = countTokens(p);
    return n >= 60 && n <= 350;
  });
  const sentences = qa.paragraphs.map((p) => (p.match(/^[^.!?。！？]*[.!?。！？]/u)?.[0] ?? '').trim()).filter((s) => s.length > 10 && s.length < 200 && !/^[#>*+-]/.test(s));
  return { paragraphs, sentences, questions: qa.questions };
}

/** The Markdown of book `b` (deterministic). */
export function bookText(s: Shelf, b: number): string {
  const out: string[] = [`# Book ${b}`];
  let i = 0;
  for (let c = 1; c <= CHAPTERS; c++) {
    out.push(`## Chapter ${c} of book ${b}`);
    for (let k = 1; k <= SECTIONS; k++) {
      out.push(`### Section ${c}.${k}`);
      for (let p = 0; p < PARAGRAPHS; p++, i++) {
        const n = b * BLOCKS_PER_BOOK + i;
        const a = s.paragraphs[n % s.paragraphs.length]!;
        const extra = s.sentences[((Math.imul(n, 7919) + b) >>> 0) % s.sentences.length]!;
        out.push(`${a} ${extra}`);
      }
    }
  }
  return `${out.join('\n\n')}\n`;
}

export function bookPath(folder: string, b: number): string {
  return path.join(folder, `book-${String(b).padStart(5, '0')}.md`);
}

/** Writes books [from, to) into `folder`. */
export function writeBooks(s: Shelf, folder: string, from: number, to: number): void {
  fs.mkdirSync(folder, { recursive: true });
  for (let b = from; b < to; b++) fs.writeFileSync(bookPath(folder, b), bookText(s, b));
}

/** Vectors written to the cache at once while seeding it (few large segments, little compaction). */
const SEED_GROUP = 65_536;

/**
 * Fills the embedding cache with the hash embeddings of every block of books [0, books): each book
 * parsed and blocked exactly as a build does (the ingest pool), so the build finds every vector cached
 * (the rebuild group's convention: a full rebuild with embeddings cached). Returns the blocks seen.
 */
export async function seedCache(s: Shelf, folder: string, books: number, embeddingsDir: string, baseURL: string, model: string, dims: number, pool: IngestPool): Promise<number> {
  // A cache instance per flush: an instance keeps every vector it was given (4 GB at 1M).
  const cache = () => new EmbeddingCache(embeddingsDir, endpointFamily(baseURL), model, dims);
  let pending = new Map<string, Float32Array>();
  let blocks = 0;
  const flush = async () => {
    const items = [...pending];
    pending = new Map();
    await cache().putAll(items);
  };
  const inFlight = new Set<Promise<void>>();
  for (let b = 0; b < books; b++) {
    const job: Promise<void> = pool.run(bookPath(folder, b), { doc_id: 'seed', source_label: 'seed', aliases: [] }).then(async (o) => {
      if (o.ok !== true) throw new Error(`book ${b} did not parse: ${JSON.stringify(o)}`);
      for (const block of o.document.blocks) pending.set(embeddingKey(block.text), hashEmbedding(block.text, dims));
      blocks += o.document.blocks.length;
      inFlight.delete(job);
    });
    inFlight.add(job);
    if (inFlight.size >= pool.size * 3) await Promise.race(inFlight);
    if (pending.size >= SEED_GROUP) await flush();
  }
  await Promise.all(inFlight);
  await flush();
  await cache().compact();
  return blocks;
}
