import { z } from 'zod';
import { DocQaError } from '../common/errors';
import { ReleaseStatus } from '../shared/run-result';

/**
 * A gold set is JSONL, one case per line: a question and what a correct run must show. Every check is
 * deterministic: release status, refs that must be cited, strings that must or must not appear, tools
 * that must be called.
 */
export const GoldCase = z
  .object({
    id: z.string().min(1),
    question: z.string().min(1),
    lang: z.enum(['zh', 'en']).optional(),
    expect: z
      .object({
        status: ReleaseStatus.optional(),
        reason: z.string().nullable().optional(),
        cite: z.array(z.string().regex(/^[^#\s]+#[^#\s]+$/, 'a ref doc_id#block_id')).default([]),
        contains: z.array(z.string().min(1)).default([]),
        not_contains: z.array(z.string().min(1)).default([]),
        tools: z.array(z.string()).default([]),
      })
      .strict(),
  })
  .strict();
export type GoldCase = z.infer<typeof GoldCase>;

/** Parses a gold set, naming the line and field of the first problem; ids must be unique. */
export function parseGoldset(text: string, file: string): GoldCase[] {
  const cases: GoldCase[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      throw new DocQaError('invalid_argument', `${file} line ${i + 1} is not JSON: ${(err as Error).message}`);
    }
    const parsed = GoldCase.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new DocQaError('invalid_argument', `${file} line ${i + 1}: ${issue.path.join('.') || 'case'}: ${issue.message}`);
    }
    if (seen.has(parsed.data.id)) throw new DocQaError('invalid_argument', `${file} line ${i + 1}: case id "${parsed.data.id}" is used twice`);
    seen.add(parsed.data.id);
    cases.push(parsed.data);
  });
  if (cases.length === 0) throw new DocQaError('invalid_argument', `${file} has no cases`);
  return cases;
}
