import type { PageRegion } from '../../shared/block-location';
import { isCjk, type Line } from './pdf-lines';

/** Where an image read by OCR sits on its page: its box in points, y down from the page's top (pdf-images.ts). */
export interface ImagePlace {
  left: number;
  top: number;
  width: number;
  height: number;
  /** The pixels OCR was given (after shrinking). */
  pixelsWide: number;
  pixelsHigh: number;
}

/**
 * A line OCR read whose words' mean confidence is below this is noise, not text: a photograph, a
 * diagram's hatching or a stain gives rows of low-confidence marks (Tesseract reports 0–100).
 */
export const MIN_LINE_CONFIDENCE = 40;

interface TsvWord {
  line: string;
  text: string;
  conf: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Tesseract's TSV: `level page block par line word left top width height conf text`, a row each; words are level 5. */
function tsvWords(tsv: string): TsvWord[] {
  const words: TsvWord[] = [];
  for (const row of tsv.split('\n')) {
    const f = row.split('\t');
    if (f[0] !== '5' || f.length < 12) continue;
    const text = f.slice(11).join('\t').trim();
    if (!text) continue;
    words.push({ line: `${f[2]}.${f[3]}.${f[4]}`, text, conf: Number(f[10]), left: Number(f[6]), top: Number(f[7]), width: Number(f[8]), height: Number(f[9]) });
  }
  return words;
}

/** Words of a line joined as the page reads: a space between words, none between two CJK characters. */
export function joinWords(words: readonly string[]): string {
  let out = '';
  for (const w of words) {
    if (out && !(isCjk([...out].pop()) && isCjk([...w][0]))) out += ' ';
    out += w;
  }
  return out;
}

/** Points to a tenth: what a highlight needs, and the same number on every run. */
const tenth = (n: number) => Math.round(n * 10) / 10;

/**
 * A line's words' box on the page: from the image's pixels (y down) to points of the page as shown
 * (pdf-images.ts places the image there, upright), left, top, right, bottom.
 */
export function lineRegion(words: ReadonlyArray<Pick<TsvWord, 'left' | 'top' | 'width' | 'height'>>, place: ImagePlace): PageRegion {
  const sx = place.width / place.pixelsWide;
  const sy = place.height / place.pixelsHigh;
  const left = Math.min(...words.map((w) => w.left));
  const top = Math.min(...words.map((w) => w.top));
  const right = Math.max(...words.map((w) => w.left + w.width));
  const bottom = Math.max(...words.map((w) => w.top + w.height));
  return [tenth(place.left + left * sx), tenth(place.top + top * sy), tenth(place.left + right * sx), tenth(place.top + bottom * sy)];
}

/**
 * The lines OCR read from one image, as the PDF parser's lines (pdf-lines.ts): their text, the y of
 * their baseline in the page's own coordinates (up from the bottom, `pageTop` being the page box's top)
 * and their height in points as the type size, so the rest of the parser (paragraphs, headings by size,
 * running lines) treats a scanned page as it treats a page of text; and their box on the page, which
 * the PDF page view highlights (a scan has no text layer to find a block's text in). Noise lines are
 * left out.
 */
export function ocrLines(tsv: string, place: ImagePlace, pageTop: number): Line[] {
  const byLine = new Map<string, TsvWord[]>();
  for (const w of tsvWords(tsv)) {
    const list = byLine.get(w.line);
    if (list) list.push(w);
    else byLine.set(w.line, [w]);
  }
  const scale = place.height / place.pixelsHigh;
  const lines: Line[] = [];
  for (const words of byLine.values()) {
    const conf = words.reduce((s, w) => s + w.conf, 0) / words.length;
    if (conf < MIN_LINE_CONFIDENCE) continue;
    const text = joinWords(words.map((w) => w.text))
      .replace(/\s+/g, ' ')
      .trim();
    if (!text) continue;
    const bottom = Math.max(...words.map((w) => w.top + w.height));
    // The median word's height is the type's: a line's box also spans its descenders and any stray mark.
    const heights = words.map((w) => w.height).sort((a, b) => a - b);
    const size = heights[Math.floor(heights.length / 2)]! * scale;
    lines.push({ text, y: pageTop - (place.top + bottom * scale), size: Math.round(size * 10) / 10, box: lineRegion(words, place) });
  }
  return lines;
}
