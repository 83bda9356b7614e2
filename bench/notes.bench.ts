/**
 * Section recall on learner notes (bench/notes: Markdown written the way students write it, headings
 * several levels deep, generated tables of contents, code, tables, Chinese with English terms), ingested
 * through the real parser and blocker. A hit is a top-k block of the gold document whose section_path is
 * the gold section. DocQA's keyword ranking (search_blocks without vectors) next to a bigram BM25 over
 * each block's section path and text, in the same run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { Bm25Index, buildBm25, keywordFields } from '../src/index/search/bm25-index';
import { hybridSearch } from '../src/index/search/hybrid-search';
import { ingestFile } from '../src/index/ingest/ingest-file';
import { DEFAULT_INGEST_OPTIONS, type Document } from '../src/index/model';
import { bigramBm25 } from './bigram-bm25';
import type { BenchRow } from './report';

const NOTES = path.join(__dirname, 'notes');
const Question = z.strictObject({ q: z.string().min(1), file: z.string().min(1), section: z.string().min(1) });
type Question = z.infer<typeof Question>;

export async function loadNotes(): Promise<{ documents: Document[]; questions: Question[] }> {
  const files = fs.readdirSync(NOTES).filter((f) => f.endsWith('.md')).sort();
  const documents: Document[] = [];
  for (const [i, f] of files.entries()) {
    // doc ids in file-name order: the global block order, and so every tie-break, is fixed.
    const r = await ingestFile(path.join(NOTES, f), { doc_id: `n${String(i).padStart(3, '0')}`, source_label: 'notes', aliases: [] }, DEFAULT_INGEST_OPTIONS);
    if (!r.ok) throw new Error(`bench note ${f} did not ingest: ${r.failure.message}`);
    documents.push(r.document);
  }
  const lines = fs.readFileSync(path.join(NOTES, 'questions.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
  const questions = lines.map((l) => Question.parse(JSON.parse(l)));
  for (const q of questions) {
    const doc = documents.find((d) => path.basename(d.path) === q.file);
    if (!doc?.blocks.some((b) => b.section_path === q.section)) throw new Error(`bench question "${q.q}": no block in section "${q.section}" of ${q.file}`);
  }
  return { documents, questions };
}

export async function notesBench(): Promise<BenchRow[]> {
  const { documents, questions } = await loadNotes();
  const blocks = documents.flatMap((d) => d.blocks.map((b) => ({ file: path.basename(d.path), section: b.section_path, text: b.text })));
  // Fed as a build feeds it: each block's text and headings (its document's title and section path).
  const { texts, headings } = keywordFields(documents);
  const index = new Bm25Index(buildBm25(texts, headings));
  const withPaths = bigramBm25(blocks.map((b) => `${b.section}\n${b.text}`));
  const textOnly = bigramBm25(blocks.map((b) => b.text));
  const tally = { ours: [0, 0], reference: [0, 0], textOnly: [0, 0] };
  const count = (into: number[], ranked: number[], q: Question) => {
    const hit = (b: number) => blocks[b]!.file === q.file && blocks[b]!.section === q.section;
    if (ranked.length && hit(ranked[0]!)) into[0]!++;
    if (ranked.some(hit)) into[1]!++;
  };
  for (const q of questions) {
    count(tally.ours, hybridSearch(index, null, q.q, null, 5).map((h) => h.block), q);
    count(tally.reference, withPaths(q.q, 5), q);
    count(tally.textOnly, textOnly(q.q, 5), q);
  }
  const n = questions.length;
  const rows: BenchRow[] = [];
  for (const [k, at] of [[0, '1'], [1, '5']] as const) {
    const ours = tally.ours[k]! / n;
    const reference = tally.reference[k]! / n;
    rows.push({ name: `retrieval.notes.section_recall@${at} (${n} questions)`, value: ours, unit: 'recall', floor: reference, ratio: reference ? ours / reference : null, target: '>= 1' });
  }
  rows.push({ name: 'retrieval.notes.bigram_bm25_text_only_recall@1 (info)', value: tally.textOnly[0]! / n, unit: 'recall', floor: null, ratio: null });
  rows.push({ name: 'retrieval.notes.bigram_bm25_text_only_recall@5 (info)', value: tally.textOnly[1]! / n, unit: 'recall', floor: null, ratio: null });
  return rows;
}
