import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * The one tokenizer used for block sizes and token estimates. It is named in every snapshot manifest so
 * that counts are comparable only between snapshots that used the same one. o200k matches English well
 * and over-counts Chinese against DeepSeek's tokenizer by about a quarter (TECH-NOTES): a safe side for
 * budget admission.
 */
export const TOKENIZER_NAME = 'gpt-tokenizer@4.0.0/o200k_base';

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return o200kCount(text);
}
