import { z } from 'zod';

/**
 * What a person limits a question to (the chat's `@`): whole sources (by their label) and single
 * documents (by doc_id), resolved against the snapshot the question runs on into the run's doc_ids.
 */
export const QuestionScope = z
  .object({
    sources: z.array(z.string().min(1)).max(200).default([]),
    doc_ids: z.array(z.string().min(1)).max(2000).default([]),
  })
  .refine((s) => s.sources.length + s.doc_ids.length > 0, 'a scope names at least one source or document');
export type QuestionScope = z.infer<typeof QuestionScope>;

/** A scoped run's scope as a UI shows it: the documents, and how many the snapshot has in all. */
export const ScopeSummary = z.object({ documents: z.array(z.object({ doc_id: z.string(), title: z.string() })), sources: z.array(z.string()), of: z.number().int() });
export type ScopeSummary = z.infer<typeof ScopeSummary>;

/** What `@` offers: the snapshot's sources (with their document counts) and documents, in a stable order. */
export const ScopeTargets = z.object({
  snapshot_id: z.string().nullable(),
  sources: z.array(z.object({ label: z.string(), documents: z.number().int() })),
  documents: z.array(z.object({ doc_id: z.string(), title: z.string(), source_label: z.string(), file: z.string() })),
});
export type ScopeTargets = z.infer<typeof ScopeTargets>;
