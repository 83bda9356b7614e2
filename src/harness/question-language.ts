import type { Lang } from '../shared/step-record';

/**
 * The language a question is asked in: Chinese when it has Chinese characters. The prompt bundle is
 * chosen by it unless the host says otherwise, and everything the harness writes for the person who
 * asked (a fallback, the checks listed under a clarification, the notes added to an answer) is in it,
 * whatever the bundle's language.
 */
export function questionLanguage(question: string): Lang {
  return /[\u3400-\u9fff]/u.test(question) ? 'zh' : 'en';
}
