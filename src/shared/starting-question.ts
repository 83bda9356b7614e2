import { z } from 'zod';

/** A question to start with (starting-questions.ts): its words, and the document it is about (its scope). */
export const StartingQuestion = z.object({
  question: z.string(),
  doc_id: z.string(),
  doc_title: z.string(),
  /** The section the question is about (null: the whole document). */
  section: z.string().nullable(),
});
export type StartingQuestion = z.infer<typeof StartingQuestion>;
