/** Okapi BM25 parameters: the textbook values (both fields use the same b). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * How much a term in a block's headings (document title and section path) counts against the same term
 * in its text, in BM25F's combined term frequency. Measured on the notes set (bench/notes, section
 * recall@1, 67 questions): 1 → 0.91, 2-3 → 0.94, 4 → 0.97, 5 → 0.955; 3, inside the plateau rather than
 * at its two-question peak. CMRC 2018 and SQuAD with their article titles as headings stay at or above
 * text-only recall (0.999, 0.922-0.923 against 0.999, 0.911).
 */
export const HEADING_WEIGHT = 3;

/** What normSteps reads of a part: its blocks' field lengths, and which are live (toGlobal -1: replaced). */
type NormPart = { data: { docLengths: Uint32Array; headLengths: Uint32Array }; toGlobal: Int32Array | null };

/** Per block of a part: 1 / its text's length normalisation, and HEADING_WEIGHT / its headings'. */
export interface Norms {
  text: Float64Array;
  head: Float64Array;
}

/** What the index works out once per block: its norms, and which parts have every block live. */
export interface PreparedNorms {
  norms: Norms[];
  allLive: boolean[];
}

/** Blocks worked through between two yields of normSteps. */
const NORM_STEP = 65_536;

/** PreparedNorms in steps (a yield every NORM_STEP blocks): the average field lengths over live blocks, then each block's norms. */
export function* normSteps(parts: readonly NormPart[], size: number): Generator<void, PreparedNorms> {
  let text = 0;
  let head = 0;
  for (const { data: d, toGlobal } of parts) {
    for (let b = 0; b < d.docLengths.length; b++) {
      if (toGlobal && toGlobal[b]! < 0) continue;
      text += d.docLengths[b]!;
      head += d.headLengths[b]!;
      if ((b & (NORM_STEP - 1)) === NORM_STEP - 1) yield;
    }
  }
  const avgText = size ? text / size : 0;
  const avgHead = size ? head / size : 0;
  // A part whose blocks are all live (renumbered, none replaced) counts a term's df without reading
  // its postings: a common word's are megabytes at a million blocks.
  const allLive = parts.map(({ toGlobal }) => !toGlobal || toGlobal.every((g) => g >= 0));
  // Worked out once per block, not once per posting: the inner loop is two multiplications.
  const norms: Norms[] = [];
  for (const { data: d } of parts) {
    const n = d.docLengths.length;
    const part: Norms = { text: new Float64Array(n), head: new Float64Array(n) };
    for (let b = 0; b < n; b++) {
      part.text[b] = 1 / (1 - BM25_B + (BM25_B * d.docLengths[b]!) / avgText);
      part.head[b] = avgHead > 0 ? HEADING_WEIGHT / (1 - BM25_B + (BM25_B * d.headLengths[b]!) / avgHead) : 0;
      if ((b & (NORM_STEP - 1)) === NORM_STEP - 1) yield;
    }
    norms.push(part);
  }
  return { norms, allLive };
}
