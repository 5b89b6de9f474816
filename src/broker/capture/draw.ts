/**
 * Numbered boxes drawn onto a decoded screenshot (outline plus a label in a 3×5 digit font): pure pixel work the page
 * cannot affect.
 */
import type { RgbaImage } from "./png.ts";

export interface AnnotationBox {
  ref: number;
  /** Image pixels. */
  x: number;
  y: number;
  w: number;
  h: number;
}

/** High-contrast colours that keep white digits readable; a ref's colour is PALETTE[ref % n]. */
export const PALETTE: readonly (readonly [number, number, number])[] = [
  [230, 25, 75],
  [0, 130, 200],
  [60, 160, 60],
  [245, 110, 20],
  [145, 30, 180],
  [0, 128, 128],
  [200, 30, 200],
  [154, 99, 36],
];

export function colourFor(ref: number): readonly [number, number, number] {
  return PALETTE[ref % PALETTE.length] ?? [230, 25, 75];
}

/** Rows of 3 bits, top to bottom, for 0–9. */
const DIGITS: readonly (readonly number[])[] = [
  [7, 5, 5, 5, 7],
  [2, 6, 2, 2, 7],
  [7, 1, 7, 4, 7],
  [7, 1, 7, 1, 7],
  [5, 5, 7, 1, 1],
  [7, 4, 7, 1, 7],
  [7, 4, 7, 5, 7],
  [7, 1, 2, 2, 2],
  [7, 5, 7, 5, 7],
  [7, 5, 7, 1, 7],
];

export function fillRect(
  img: RgbaImage,
  x: number,
  y: number,
  w: number,
  h: number,
  rgb: readonly [number, number, number],
): void {
  const x0 = Math.max(0, Math.round(x));
  const y0 = Math.max(0, Math.round(y));
  const x1 = Math.min(img.width, Math.round(x + w));
  const y1 = Math.min(img.height, Math.round(y + h));
  for (let py = y0; py < y1; py++) {
    for (let px = x0; px < x1; px++) {
      const o = (py * img.width + px) * 4;
      img.data[o] = rgb[0];
      img.data[o + 1] = rgb[1];
      img.data[o + 2] = rgb[2];
      img.data[o + 3] = 255;
    }
  }
}

/** Outline whose outer edge is the box edge, `t` pixels thick, drawn inward. */
export function strokeRect(
  img: RgbaImage,
  x: number,
  y: number,
  w: number,
  h: number,
  t: number,
  rgb: readonly [number, number, number],
): void {
  const tw = Math.min(t, w / 2);
  const th = Math.min(t, h / 2);
  fillRect(img, x, y, w, th, rgb);
  fillRect(img, x, y + h - th, w, th, rgb);
  fillRect(img, x, y, tw, h, rgb);
  fillRect(img, x + w - tw, y, tw, h, rgb);
}

/** Size of a label for `text` at glyph scale `s`: 1 s of padding, 1 s between digits. */
export function labelSize(text: string, s: number): { w: number; h: number } {
  return { w: text.length * 4 * s + s, h: 7 * s };
}

export function drawLabel(
  img: RgbaImage,
  x: number,
  y: number,
  text: string,
  s: number,
  bg: readonly [number, number, number],
): void {
  const { w, h } = labelSize(text, s);
  fillRect(img, x, y, w, h, bg);
  for (const [i, ch] of [...text].entries()) {
    const glyph = DIGITS[ch.charCodeAt(0) - 48];
    if (!glyph) continue;
    const gx = x + s + i * 4 * s;
    for (const [row, bits] of glyph.entries()) {
      for (let col = 0; col < 3; col++) {
        if (bits & (4 >> col)) fillRect(img, gx + col * s, y + s + row * s, s, s, [255, 255, 255]);
      }
    }
  }
}

/**
 * Draws every box overlapping the image (clipped) and returns the count. `scale`: image px per CSS px, so lines and
 * glyphs stay legible on dense screens. Labels sit above the box's top-left when there is room, else inside.
 */
export function drawAnnotations(img: RgbaImage, boxes: readonly AnnotationBox[], scale: number): number {
  const t = Math.max(2, Math.round(2 * scale));
  const s = Math.max(2, Math.round(2 * scale));
  const visible = boxes.filter(
    (b) => b.w > 0 && b.h > 0 && b.x < img.width && b.y < img.height && b.x + b.w > 0 && b.y + b.h > 0,
  );
  for (const b of visible) strokeRect(img, b.x, b.y, b.w, b.h, t, colourFor(b.ref));
  // Labels after all outlines, so a neighbour's outline never cuts through a number.
  for (const b of visible) {
    const text = String(b.ref);
    const size = labelSize(text, s);
    const lx = Math.min(Math.max(0, b.x), img.width - size.w);
    const ly = b.y - size.h >= 0 ? b.y - size.h : Math.max(0, Math.min(b.y, img.height - size.h));
    drawLabel(img, Math.max(0, lx), ly, text, s, colourFor(b.ref));
  }
  return visible.length;
}
