/**
 * Section recall on learner notes, ingested through the real parser and blocker, keyword-only (the
 * ranking search_blocks uses without vectors: BM25F, link lists below content, sections spread out). A hit
 * is a top-k block of the gold document whose section_path is the gold section.
 *
 * - bench/notes: six notes written the way students write them (headings several levels deep, generated
 *   tables of contents, code, tables, Chinese with English terms), 67 questions; next to a bigram BM25
 *   over each block's section path and text.
 * - bench/real-notes/javascript-algorithms: 131 real notes in English and Chinese from a public repository
 *   (bench/real-notes/README.md), 84 questions committed before any search ran on them; next to a
 *   bigram BM25 over each block's document title, section path and text. Targets: recall@1 ≥ 0.80 and
 *   @5 ≥ 0.95, and above the reference.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isLinkList } from '../src/index/blocks/link-list';
import { blockPriors } from '../src/index/search/block-priors';
import { globalBlockOrder } from '../src/index/store/snapshot-store';
import { Bm25Index } from '../src/index/search/bm25-index';
import { buildBm25, keywordFields } from '../src/index/search/bm25-build';
import { hybridSearch } from '../src/index/search/hybrid-search';
import { ingestFile } from '../src/index/ingest/ingest-file';
import { DEFAULT_INGEST_OPTIONS } from '../src/index/model';
import { type Document } from '../src/shared/document';
import { bigramBm25 } from './bigram-bm25';
import type { BenchRow } from './report';

const Question = z.strictObject({ q: z.string().min(1), file: z.string().min(1), section: z.string().min(1) });
type Question = z.infer<typeof Question>;

/** A notes set: its documents (file = the path questions name) and questions. */
export interface NotesSet {
  documents: Array<Document & { file: string }>;
  questions: Question[];
}

/** Every .md under `root` (recursively), as a path relative to it, sorted. */
function markdownFiles(root: string): string[] {
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).map((f) => f.split(path.sep).join('/')).sort();
}

/** Ingests a notes folder and reads its questions; every gold section must hold a block. */
export async function loadNotesSet(root: string, questionsFile: string): Promise<NotesSet> {
  const documents: NotesSet['documents'] = [];
  for (const [i, f] of markdownFiles(root).entries()) {
    // doc ids in file order: the global block order, and so every tie-break, is fixed.
    const r = await ingestFile(path.join(root, f), { doc_id: `n${String(i).padStart(3, '0')}`, source_label: 'notes', aliases: [] }, DEFAULT_INGEST_OPTIONS);
    if (!r.ok) throw new Error(`bench note ${f} did not ingest: ${r.failure.message}`);
    documents.push({ ...r.document, file: f });
  }
  const lines = fs.readFileSync(questionsFile, 'utf8').split('\n').filter((l) => l.trim());
  const questions = lines.map((l) => Question.parse(JSON.parse(l)));
  for (const q of questions) {
    const doc = documents.find((d) => d.file === q.file);
    if (!doc?.blocks.some((b) => b.section_path === q.section)) throw new Error(`bench question "${q.q}": no block in section "${q.section}" of ${q.file}`);
  }
  return { documents, questions };
}

const NOTES = path.join(__dirname, 'notes');
const REAL = path.join(__dirname, 'real-notes');

export const loadNotes = () => loadNotesSet(NOTES, path.join(NOTES, 'questions.jsonl'));
export const loadRealNotes = () => loadNotesSet(path.join(REAL, 'javascript-algorithms'), path.join(REAL, 'javascript-algorithms.questions.jsonl'));

/** Where each question's gold section first comes in a ranking (0-based), or -1. */
export function goldRanks(set: NotesSet, rank: (q: string, k: number) => number[], k = 5): number[] {
  const blocks = set.documents.flatMap((d) => d.blocks.map((b) => ({ file: d.file, section: b.section_path })));
  return set.questions.map((q) => rank(q.q, k).findIndex((b) => blocks[b]!.file === q.file && blocks[b]!.section === q.section));
}

/** DocQA's keyword ranking of a set's blocks, as search_blocks ranks them without vectors. */
export function keywordRanking(set: NotesSet): (q: string, k: number) => number[] {
  // Fed as a build feeds it: each block's text and headings (its document's title and section path).
  const { texts, headings } = keywordFields(set.documents);
  const index = new Bm25Index(buildBm25(texts, headings));
  const priors = blockPriors(set.documents, globalBlockOrder(set.documents).docRanges);
  return (q, k) => hybridSearch(index, null, q, null, k, undefined, priors).map((h) => h.block);
}

const recallAt = (ranks: readonly number[], k: number) => ranks.filter((r) => r >= 0 && r < k).length / ranks.length;

function recallRows(name: string, n: number, ours: number[], reference: number[], targets: { at1?: number; at5?: number }): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const [k, at, min] of [[1, '1', targets.at1], [5, '5', targets.at5]] as const) {
    const value = recallAt(ours, k);
    const floor = recallAt(reference, k);
    rows.push({ name: `retrieval.${name}.section_recall@${at} (${n} questions)`, value, unit: 'recall', floor, ratio: floor ? value / floor : null, target: '>= 1' });
    if (min !== undefined) rows.push({ name: `retrieval.${name}.section_recall@${at}_absolute`, value, unit: 'recall', floor: null, ratio: null, target: `>= ${min}`, absolute: true });
  }
  return rows;
}

export async function notesBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const notes = await loadNotes();
  const blocks = notes.documents.flatMap((d) => d.blocks.map((b) => ({ section: b.section_path, text: b.text })));
  const withPaths = bigramBm25(blocks.map((b) => `${b.section}\n${b.text}`));
  const textOnly = goldRanks(notes, bigramBm25(blocks.map((b) => b.text)));
  rows.push(...recallRows('notes', notes.questions.length, goldRanks(notes, keywordRanking(notes)), goldRanks(notes, withPaths), {}));
  rows.push({ name: 'retrieval.notes.bigram_bm25_text_only_recall@1 (info)', value: recallAt(textOnly, 1), unit: 'recall', floor: null, ratio: null });
  rows.push({ name: 'retrieval.notes.bigram_bm25_text_only_recall@5 (info)', value: recallAt(textOnly, 5), unit: 'recall', floor: null, ratio: null });

  const real = await loadRealNotes();
  const titled = real.documents.flatMap((d) => d.blocks.map((b) => `${d.title}\n${b.section_path}\n${b.text}`));
  rows.push(...recallRows('real_notes', real.questions.length, goldRanks(real, keywordRanking(real)), goldRanks(real, bigramBm25(titled)), { at1: 0.8, at5: 0.95 }));
  rows.push(...crowding(real));
  return rows;
}

/** What fills the top 5 besides the answer: link-list blocks, and later blocks of a section already shown. */
function crowding(set: NotesSet): BenchRow[] {
  const rank = keywordRanking(set);
  const blocks = set.documents.flatMap((d) => d.blocks.map((b) => ({ section: `${d.file}#${b.section_path}`, links: isLinkList(b.text) })));
  let links = 0;
  let repeats = 0;
  for (const q of set.questions) {
    const top = rank(q.q, 5);
    links += top.filter((b) => blocks[b]!.links).length;
    repeats += top.length - new Set(top.map((b) => blocks[b]!.section)).size;
  }
  const places = set.questions.length * 5;
  return [
    { name: `retrieval.real_notes.link_list_places_in_top5 (info, of ${places})`, value: links, unit: 'places', floor: null, ratio: null },
    { name: `retrieval.real_notes.repeated_section_places_in_top5 (info, of ${places})`, value: repeats, unit: 'places', floor: null, ratio: null },
  ];
}
