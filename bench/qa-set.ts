/**
 * The keyword-retrieval question sets (CMRC 2018 and SQuAD 1.1 dev, from ../shared/corpus/qa) and their
 * recall, shared by the retrieval and orama groups so both score the same questions the same way.
 */
import fs from 'node:fs';
import path from 'node:path';

export const QA_DIR = path.join(__dirname, '..', '..', 'shared', 'corpus', 'qa');
const QUESTIONS = 1000;

/** The two sets: row-name part and file. */
export const QA_SETS = [
  ['zh.cmrc2018', 'cmrc2018-dev.json'],
  ['en.squad1.1', 'squad-dev-v1.1.json'],
] as const;

interface Squad {
  data: Array<{ title: string; paragraphs: Array<{ context: string; qas: Array<{ question: string }> }> }>;
}

export interface QaSet {
  paragraphs: string[];
  titles: string[];
  /** A question and the index of the paragraph it was asked of. */
  questions: Array<{ q: string; gold: number }>;
}

export function qaSet(file: string): QaSet {
  const data = JSON.parse(fs.readFileSync(path.join(QA_DIR, file), 'utf8')) as Squad;
  const paragraphs: string[] = [];
  const titles: string[] = [];
  const questions: Array<{ q: string; gold: number }> = [];
  for (const article of data.data)
    for (const p of article.paragraphs) {
      const gold = paragraphs.push(p.context) - 1;
      // SQuAD titles are Wikipedia page names: Super_Bowl_50.
      titles.push(article.title.replace(/_/g, ' '));
      for (const qa of p.qas) questions.push({ q: qa.question, gold });
    }
  // A fixed, evenly spread sample: the same questions on every run.
  const step = questions.length / QUESTIONS;
  return { paragraphs, titles, questions: Array.from({ length: Math.min(QUESTIONS, questions.length) }, (_, i) => questions[Math.floor(i * step)]!) };
}

/** The share of questions whose gold paragraph is among the first `k` that `rank` returns. */
export function recallAt(questions: QaSet['questions'], k: number, rank: (q: string, k: number) => readonly number[]): number {
  let found = 0;
  for (const { q, gold } of questions) if (rank(q, k).slice(0, k).includes(gold)) found++;
  return questions.length ? found / questions.length : 0;
}

export function percentile(v: readonly number[], p: number): number {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
