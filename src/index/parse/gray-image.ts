/** A page's image as OCR reads it: one byte of grey a pixel (0 black, 255 white), rows top to bottom. */
export interface GrayImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** An image as pdf.js decodes it: `kind` 1 is 1 bit a pixel (rows padded to a byte), 2 RGB, 3 RGBA. */
export interface DecodedImage {
  width: number;
  height: number;
  kind?: number;
  data: Uint8Array | Uint8ClampedArray;
}

/**
 * pdf.js's decoded image as grey. In a 1-bit image a set bit is white. pdf.js gives an image mask
 * (`mask`) with its /Decode applied, a clear bit where the page is painted: a bilevel scan's ink, drawn
 * in black as scans are, so it reads the same way.
 */
export function toGray(img: DecodedImage, mask: boolean): GrayImage {
  const { width, height, data } = img;
  const out = new Uint8Array(width * height);
  if (mask || img.kind === 1) {
    const row = (width + 7) >> 3;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) out[y * width + x] = data[y * row + (x >> 3)]! & (0x80 >> (x & 7)) ? 255 : 0;
    }
    return { width, height, data: out };
  }
  const channels = img.kind === 3 ? 4 : 3;
  for (let i = 0, j = 0; i < out.length; i++, j += channels) {
    // ITU-R BT.601 luma, in integers; a transparent pixel (RGBA) is the white page under it.
    const luma = (data[j]! * 299 + data[j + 1]! * 587 + data[j + 2]! * 114) / 1000;
    out[i] = channels === 4 ? Math.round(255 - ((255 - luma) * data[j + 3]!) / 255) : Math.round(luma);
  }
  return { width, height, data: out };
}

/**
 * The image turned as the page shows it. `m` maps the image's unit square (its first row at the top,
 * y = 1) to the page view (y down): [a, b, c, d] as in a PDF matrix. Scans are drawn upright, sideways
 * on a rotated page, or flipped; the nearest of these eight turns is taken (a slight skew is Tesseract's
 * to deskew).
 */
export function upright(img: GrayImage, m: readonly [number, number, number, number]): GrayImage {
  const [a, b, c, d] = m;
  const swap = Math.abs(b) + Math.abs(c) > Math.abs(a) + Math.abs(d);
  // Where the image's x axis and its (downward) row axis point in the view.
  const xAlong = swap ? Math.sign(b) : Math.sign(a);
  const rowAlong = swap ? -Math.sign(c) : -Math.sign(d);
  const { width, height, data } = img;
  const [w, h] = swap ? [height, width] : [width, height];
  if (!swap && xAlong >= 0 && rowAlong >= 0) return img;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      // Without a swap the image's x runs along the view's x; with one, along the view's y.
      let vx = swap ? y : x;
      let vy = swap ? x : y;
      if (!swap && xAlong < 0) vx = w - 1 - vx;
      if (!swap && rowAlong < 0) vy = h - 1 - vy;
      if (swap && rowAlong < 0) vx = w - 1 - vx;
      if (swap && xAlong < 0) vy = h - 1 - vy;
      out[vy * w + vx] = data[y * width + x]!;
    }
  }
  return { width: w, height: h, data: out };
}

/**
 * The image shrunk by a whole factor (each output pixel the mean of a factor × factor square) until it
 * has at most `maxPixels`: Tesseract's memory grows with the image, and text scanned at 600 dpi reads as
 * well at 300.
 */
export function shrink(img: GrayImage, maxPixels: number): { image: GrayImage; factor: number } {
  const factor = Math.max(1, Math.ceil(Math.sqrt((img.width * img.height) / maxPixels)));
  if (factor === 1) return { image: img, factor };
  const w = Math.floor(img.width / factor);
  const h = Math.floor(img.height / factor);
  const out = new Uint8Array(w * h);
  const area = factor * factor;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let sum = 0;
      for (let dy = 0; dy < factor; dy++) {
        const row = (y * factor + dy) * img.width + x * factor;
        for (let dx = 0; dx < factor; dx++) sum += img.data[row + dx]!;
      }
      out[y * w + x] = Math.round(sum / area);
    }
  }
  return { image: { width: w, height: h, data: out }, factor };
}

/** The image as a binary PGM (P5), a format Tesseract's Leptonica reads without any codec. */
export function pgm(img: GrayImage): Uint8Array {
  const head = new TextEncoder().encode(`P5\n${img.width} ${img.height}\n255\n`);
  const out = new Uint8Array(head.length + img.data.length);
  out.set(head);
  out.set(img.data, head.length);
  return out;
}
