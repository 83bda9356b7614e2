/**
 * The files of a segment, by the segment's format (its manifest entry's `format`).
 *
 * Format 1 (snapshots of manifest format 2, still read): documents.json (one JSON document of the
 * segment's documents), keyword.pack (postings inside), vectors.f32.
 *
 * Format 2: documents.jsonl (a `{formatVersion: 2}` line, then one document per line without its
 * blocks), blocks.pack (the blocks' columns, block-table.ts), text.bin (their texts, UTF-8, back to
 * back), keyword.pack (terms, offsets, field lengths) with keyword.postings (read one term at a time),
 * vectors.q8 (int8 codes, then a float32 scale per row: what the vector side scans) and vectors.f32
 * (the exact rows, read for rescoring and when a later build carries the documents over).
 */
export const SEGMENT_FILES_1 = { documents: 'documents.json', keyword: 'keyword.pack', vectors: 'vectors.f32' } as const;

export const SEGMENT_FILES_2 = {
  documents: 'documents.jsonl',
  blocks: 'blocks.pack',
  text: 'text.bin',
  keyword: 'keyword.pack',
  postings: 'keyword.postings',
  codes: 'vectors.q8',
  vectors: 'vectors.f32',
} as const;

export type SegmentFormat = 1 | 2;

/** The files a segment of `format` consists of (vector files only with vectors). */
export function segmentFileNames(format: SegmentFormat, withVectors: boolean): string[] {
  if (format === 1) return [SEGMENT_FILES_1.documents, SEGMENT_FILES_1.keyword, ...(withVectors ? [SEGMENT_FILES_1.vectors] : [])];
  const f = SEGMENT_FILES_2;
  return [f.documents, f.blocks, f.text, f.keyword, f.postings, ...(withVectors ? [f.codes, f.vectors] : [])];
}

/** Bytes of the vector files of `rows` rows of `dims` (the size checks of a parent's segments). */
export function vectorFileSizes(format: SegmentFormat, rows: number, dims: number): Record<string, number> {
  const f32 = { [SEGMENT_FILES_2.vectors]: rows * dims * 4 };
  return format === 1 ? f32 : { ...f32, [SEGMENT_FILES_2.codes]: rows * (dims + 4) };
}

/** The format this DocQA writes; a parent's segments of another are rewritten by the next build. */
export const CURRENT_SEGMENT_FORMAT: SegmentFormat = 2;
