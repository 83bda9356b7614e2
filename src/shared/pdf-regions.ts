import type { PageRegion } from './block-location';

export type { PageRegion };

/**
 * Where the PDF page view draws a scanned block's highlight: its line regions (points of the page as
 * shown, from OCR: PageLocation's `boxes`) as rectangles in CSS pixels over the page drawn at `scale`,
 * padded a little so the outline does not sit on the letters, clipped to the page. Pure: the webview
 * calls it, the unit tests check the arithmetic. A region that is empty or off the page is dropped.
 */
export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Points around a line's words: half the gap between lines of body text at most. */
export const REGION_PAD_PT = 1.5;

export function regionRects(boxes: readonly PageRegion[], scale: number, page: { width: number; height: number }): Rect[] {
  const out: Rect[] = [];
  for (const [x0, y0, x1, y1] of boxes) {
    const left = Math.max(0, Math.min(x0, x1) - REGION_PAD_PT) * scale;
    const top = Math.max(0, Math.min(y0, y1) - REGION_PAD_PT) * scale;
    const right = Math.min(page.width, (Math.max(x0, x1) + REGION_PAD_PT) * scale);
    const bottom = Math.min(page.height, (Math.max(y0, y1) + REGION_PAD_PT) * scale);
    if (right - left < 1 || bottom - top < 1) continue;
    out.push({ left, top, width: right - left, height: bottom - top });
  }
  return out;
}
