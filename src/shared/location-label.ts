import type { BlockLocation } from './block-location';

/**
 * A block's location in a few words, for a person (the CLI, the inspect panel, failure messages):
 * "lines 3-5", "page 2", "¶ 4-6", "chapter 3 ¶ 2", "slide 4 ¶ 1-3". Pure: the webviews use it too.
 */
export function locationLabel(l: BlockLocation): string {
  const range = (a: number, b: number) => (a === b ? `${a}` : `${a}-${b}`);
  switch (l.kind) {
    case 'lines':
      return l.line_start === l.line_end ? `line ${l.line_start}` : `lines ${range(l.line_start, l.line_end)}`;
    case 'page':
      return `page ${l.page}`;
    case 'paragraphs':
      return `¶ ${range(l.first, l.last)}`;
    case 'chapter':
      return `chapter ${l.chapter} ¶ ${range(l.first, l.last)}`;
    case 'slide':
      return `slide ${l.slide} ¶ ${range(l.first, l.last)}`;
  }
}
