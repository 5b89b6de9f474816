/**
 * A small PNG codec for Chrome's screenshots (8-bit, not interlaced) to RGBA and back: annotation is drawn in the
 * broker, where the page's CSP and scripts cannot reach.
 */
import type * as NodeZlib from "node:zlib";

export interface RgbaImage {
  width: number;
  height: number;
  /** width × height × 4 bytes, row-major, straight (not premultiplied) alpha. */
  data: Uint8Array;
}

const SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Screenshots are bounded by Chrome's texture limits; this only guards the allocation. */
const MAX_PIXELS = 200_000_000;

/** Loaded by the first image that needs it: loaded with the broker, node:zlib cost the idle broker megabytes. */
const zlib = () => import.meta.require("node:zlib") as typeof NodeZlib;

export class PngError extends Error {
  override name = "PngError";
}

/** Width and height from the IHDR chunk, without decoding. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  if (png.length < 24 || !SIGNATURE.every((b, i) => png[i] === b)) throw new PngError("not a PNG");
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

export function decodePng(png: Uint8Array): RgbaImage {
  const { width, height } = pngSize(png);
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let depth = 0;
  let colorType = -1;
  let interlace = 0;
  let palette: Uint8Array | undefined;
  let transparency: Uint8Array | undefined;
  const idat: Uint8Array[] = [];
  for (let off = 8; off + 8 <= png.length; ) {
    const len = view.getUint32(off);
    const type = String.fromCharCode(png[off + 4] ?? 0, png[off + 5] ?? 0, png[off + 6] ?? 0, png[off + 7] ?? 0);
    const body = png.subarray(off + 8, off + 8 + len);
    if (body.length !== len) throw new PngError("truncated chunk");
    if (type === "IHDR") {
      depth = body[8] ?? 0;
      colorType = body[9] ?? -1;
      interlace = body[12] ?? 0;
    } else if (type === "PLTE") palette = body;
    else if (type === "tRNS") transparency = body;
    else if (type === "IDAT") idat.push(body);
    else if (type === "IEND") break;
    off += 12 + len;
  }
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colorType];
  if (depth !== 8 || channels === undefined || interlace !== 0) {
    throw new PngError(`unsupported PNG (bit depth ${depth}, colour type ${colorType}, interlace ${interlace})`);
  }
  if (width === 0 || height === 0 || width * height > MAX_PIXELS)
    throw new PngError(`unsupported PNG size ${width}x${height}`);
  const raw = zlib().inflateSync(concat(idat));
  const stride = width * channels;
  if (raw.length < (stride + 1) * height) throw new PngError("image data too short");
  const pixels = unfilter(raw, stride, height, channels);
  const out = new Uint8Array(width * height * 4);
  for (let i = 0, p = 0; i < width * height; i++, p += channels) {
    const o = i * 4;
    const a = pixels[p] ?? 0;
    if (colorType === 6) out.set(pixels.subarray(p, p + 4), o);
    else if (colorType === 2) {
      out[o] = a;
      out[o + 1] = pixels[p + 1] ?? 0;
      out[o + 2] = pixels[p + 2] ?? 0;
      out[o + 3] = 255;
    } else if (colorType === 3) {
      out[o] = palette?.[a * 3] ?? 0;
      out[o + 1] = palette?.[a * 3 + 1] ?? 0;
      out[o + 2] = palette?.[a * 3 + 2] ?? 0;
      out[o + 3] = transparency?.[a] ?? 255;
    } else {
      out[o] = out[o + 1] = out[o + 2] = a;
      out[o + 3] = colorType === 4 ? (pixels[p + 1] ?? 255) : 255;
    }
  }
  return { width, height, data: out };
}

/** Reverses the per-row PNG filters (None, Sub, Up, Average, Paeth). */
function unfilter(raw: Uint8Array, stride: number, height: number, bpp: number): Uint8Array {
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    for (let x = 0; x < stride; x++) {
      const v = raw[src + x] ?? 0;
      const left = x >= bpp ? (out[row + x - bpp] ?? 0) : 0;
      const up = y > 0 ? (out[prev + x] ?? 0) : 0;
      const upLeft = y > 0 && x >= bpp ? (out[prev + x - bpp] ?? 0) : 0;
      let pred = 0;
      if (filter === 1) pred = left;
      else if (filter === 2) pred = up;
      else if (filter === 3) pred = (left + up) >> 1;
      else if (filter === 4) pred = paeth(left, up, upLeft);
      else if (filter !== 0) throw new PngError(`bad filter type ${filter}`);
      out[row + x] = (v + pred) & 0xff;
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Encodes RGBA as PNG (RGB when all opaque); each row takes the filter with the smallest absolute sum (libpng's
 * heuristic).
 */
export function encodePng(img: RgbaImage): Uint8Array {
  const { width, height, data } = img;
  let opaque = true;
  for (let i = 3; i < data.length; i += 4) {
    if (data[i] !== 255) {
      opaque = false;
      break;
    }
  }
  const bpp = opaque ? 3 : 4;
  const stride = width * bpp;
  const pixels = new Uint8Array(stride * height);
  if (opaque) {
    for (let i = 0, o = 0; i < data.length; i += 4, o += 3) {
      pixels[o] = data[i] ?? 0;
      pixels[o + 1] = data[i + 1] ?? 0;
      pixels[o + 2] = data[i + 2] ?? 0;
    }
  } else pixels.set(data.subarray(0, stride * height));
  const filtered = new Uint8Array((stride + 1) * height);
  const candidate = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    let best = Number.POSITIVE_INFINITY;
    let bestType = 0;
    const target = y * (stride + 1);
    for (let type = 0; type <= 4; type++) {
      let sum = 0;
      for (let x = 0; x < stride; x++) {
        const v = pixels[row + x] ?? 0;
        const left = x >= bpp ? (pixels[row + x - bpp] ?? 0) : 0;
        const up = y > 0 ? (pixels[row - stride + x] ?? 0) : 0;
        const upLeft = y > 0 && x >= bpp ? (pixels[row - stride + x - bpp] ?? 0) : 0;
        const pred =
          type === 0
            ? 0
            : type === 1
              ? left
              : type === 2
                ? up
                : type === 3
                  ? (left + up) >> 1
                  : paeth(left, up, upLeft);
        const f = (v - pred) & 0xff;
        candidate[x] = f;
        sum += f < 128 ? f : 256 - f;
        if (sum >= best) break;
      }
      if (sum < best) {
        best = sum;
        bestType = type;
        filtered.set(candidate, target + 1);
      }
    }
    filtered[target] = bestType;
  }
  const ihdr = new Uint8Array(13);
  const hv = new DataView(ihdr.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  ihdr[8] = 8;
  ihdr[9] = opaque ? 2 : 6;
  return concat([
    SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib().deflateSync(filtered, { level: 6 })),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

function chunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  view.setUint32(8 + body.length, zlib().crc32(out.subarray(4, 8 + body.length)));
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
