/**
 * Bidirectional control characters (U+202A–U+202E, U+2066–U+2069, LRM/RLM/ALM) can make text read in a
 * different order than it is stored ("Trojan Source"); in answers, titles and previews they are shown as
 * visible tags instead, so what a person reads is what the document says.
 */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function showControls(s: string): string {
  return s.replace(BIDI, (c) => `‹U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}›`);
}
