import { z } from 'zod';

/**
 * One tool call as the rest of the system shows it — the step list, the fallback, the completeness
 * statement, the stored conversation: what it looked at and what it found, as data and in words (English
 * and Chinese). The words are written by the tool itself (its `summarize`), so nothing outside a tool's
 * file knows its fields or its name. A leaf module: zod only.
 */
export const Words = z.object({ en: z.string(), zh: z.string() });
export type Words = z.infer<typeof Words>;
export type Lang = keyof Words;

/**
 * What a call looks at. A scope over documents always says how many of how many, so "scanned 42 of 42
 * documents" can be told from "scanned 1 document".
 */
export const StepScope = z.object({
  tool: z.string(),
  /** The documents in scope: all of them when the input named none. */
  documents: z.object({
    count: z.number().int(),
    of: z.number().int(),
    all: z.boolean(),
    titles: z.array(z.string()),
    /** A scoped question (run-scope.ts): `of` counts the documents of its scope, not of the collection. */
    scoped: z.boolean().optional(),
  }),
  /** The section paths read (empty = the whole document, or a tool that reads no sections). */
  sections: z.array(z.string()),
  /** The text looked for (a query, a literal term), if any. */
  text: z.string().nullable(),
  /** Filters, as given. */
  filters: z.record(z.string(), z.string()),
  /** The scope in words, as a UI shows it while the step runs ("Scanning all 42 documents for “X”"). */
  words: Words,
});
export type StepScope = z.infer<typeof StepScope>;

/** Steps sharing a tally are counted together in "what was checked" ("searched 3 ways"): `{n}` is their number. */
export const Tally = z.object({ one: Words, many: Words });
export type Tally = z.infer<typeof Tally>;

export const StepOutcome = z.object({
  kind: z.enum(['ok', 'empty', 'error', 'not_admitted']),
  /** Blocks whose full text came back. */
  blocks: z.number().int(),
  /** Occurrences of a literal term, and the blocks and documents they are in. */
  hits: z.number().int(),
  hit_blocks: z.number().int(),
  hit_documents: z.number().int(),
  /** Documents returned, and the sections of their outlines. */
  documents: z.number().int(),
  sections: z.number().int(),
  empty_reason: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** Why a result was left out of the context (a budget), and its size. */
  not_admitted: z.object({ reason: z.string(), tokens: z.number().int() }).nullable(),
  /** What the step found, in words ("17 hits in 5 blocks", "nothing found", "not added: …"). */
  words: Words,
  /** The step in a fallback's "what was checked" ("scanned 42 of 42 documents for “X”: 0 hits"), or null. */
  checked: Words.nullable(),
  /** The complete scope an answer resting on this step covered ("all 12 blocks of § 3"), or null. */
  covers: Words.nullable(),
  /** Counted with the steps of the same tally in "what was checked", or null. */
  tally: Tally.nullable(),
});
export type StepOutcome = z.infer<typeof StepOutcome>;

/** A block a step returned, as a step list shows it (title, section, first line). */
export const BlockBrief = z.object({ ref: z.string(), doc_title: z.string(), section_path: z.string(), first_line: z.string() });
export type BlockBrief = z.infer<typeof BlockBrief>;

/**
 * One tool call as the harness records it, once: what was asked (its duplicate-scope key and its scope)
 * and, once it has ended, what came back — the outcome as the run took it (an error, a result the budget
 * refused) and the blocks and documents the tool's result held. The agent's events carry it whole
 * (`stepEvent` in run-result.ts), the tool span's attributes and the stored step are derived from it
 * (`stepAttributes` in src/harness/tool-step.ts, `turnStep` in turn-steps.ts): nothing is copied twice.
 */
export const StepRecord = z.object({
  tool_call_id: z.string(),
  tool: z.string(),
  /** The request's identity for the duplicate-scope check (information-gain seed §6). */
  scope_key: z.string(),
  scope: StepScope,
  /** null while the call runs. */
  outcome: StepOutcome.nullable(),
  /** The blocks the result returned or located, in order: a refused result's too (the trace and the replay compare them). */
  blocks: z.array(BlockBrief),
  /** The documents it listed (document lists and outlines). */
  doc_ids: z.array(z.string()),
});
export type StepRecord = z.infer<typeof StepRecord>;

/** The counts of an outcome: what a tool's summary fills in. */
export type StepCounts = Pick<StepOutcome, 'blocks' | 'hits' | 'hit_blocks' | 'hit_documents' | 'documents' | 'sections'>;

export const NO_COUNTS: StepCounts = { blocks: 0, hits: 0, hit_blocks: 0, hit_documents: 0, documents: 0, sections: 0 };

const NO_RELEASE_WORDS = { checked: null, covers: null, tally: null };

/** A call that failed (its error payload): the same words for every tool. */
export function errorOutcome(error: { code: string; message: string } | null): StepOutcome {
  // An error without its details (a hand-made or damaged record) is still words, not a crash.
  const words = error ? { en: `failed: ${error.message}`, zh: `失败：${error.message}` } : { en: 'failed', zh: '失败' };
  return { kind: 'error', ...NO_COUNTS, empty_reason: null, error, not_admitted: null, words, ...NO_RELEASE_WORDS };
}

/**
 * A result the budget kept out of the context: its counts, and which budget refused it (an error stays an
 * error, noting the refusal).
 */
export function notAdmittedOutcome(o: StepOutcome, notAdmitted: { reason: string; tokens: number }): StepOutcome {
  if (o.kind === 'error') return { ...o, not_admitted: notAdmitted };
  const counts: StepCounts = { blocks: o.blocks, hits: o.hits, hit_blocks: o.hit_blocks, hit_documents: o.hit_documents, documents: o.documents, sections: o.sections };
  const request = notAdmitted.reason === 'request_budget_exceeded';
  const words = {
    en: `not added: the result (${notAdmitted.tokens} tokens) did not fit the ${request ? 'request budget' : 'context budget'}`,
    zh: `结果（${notAdmitted.tokens} tokens）超出${request ? '请求预算' : '上下文预算'}，未加入`,
  };
  return { kind: 'not_admitted', ...counts, empty_reason: o.empty_reason, error: null, not_admitted: notAdmitted, words, ...NO_RELEASE_WORDS };
}

/** "searched 3 ways": a tally's words for `n` steps. */
export function tallyWords(t: Tally, n: number, lang: Lang): string {
  return (n === 1 ? t.one : t.many)[lang].replaceAll('{n}', String(n));
}
