/**
 * Sentence boundaries from ICU (Intl.Segmenter): handles English abbreviations and the Chinese marks
 * 。！？ without a hand-written rule list. Used to split long paragraphs and for a section's first sentence.
 */
const segmenter = new Intl.Segmenter('zh', { granularity: 'sentence' });

export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const s of segmenter.segment(text)) if (s.segment.length > 0) out.push(s.segment);
  return out;
}

const FIRST_SENTENCE_MAX_CHARS = 200;

export function firstSentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length === 0) return '';
  // Only the head is segmented: a section's first block can be long.
  const head = trimmed.slice(0, FIRST_SENTENCE_MAX_CHARS * 2);
  const first = segmenter.segment(head)[Symbol.iterator]().next();
  const sentence = (first.done ? head : first.value.segment).replace(/\s+/g, ' ').trim();
  return sentence.length > FIRST_SENTENCE_MAX_CHARS ? `${sentence.slice(0, FIRST_SENTENCE_MAX_CHARS)}…` : sentence;
}
