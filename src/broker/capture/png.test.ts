import { describe, expect, test } from "bun:test";
import { crc32, deflateSync } from "node:zlib";
import { colourFor, drawAnnotations, labelSize, PALETTE } from "./draw.ts";
import { decodePng, encodePng, pngSize, type RgbaImage } from "./png.ts";

function gradient(width: number, height: number, alpha = false): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      data[o] = (x * 7) & 0xff;
      data[o + 1] = (y * 13) & 0xff;
      data[o + 2] = (x * y) & 0xff;
      data[o + 3] = alpha ? (x + y) & 0xff : 255;
    }
  }
  return { width, height, data };
}

function pixel(img: RgbaImage, x: number, y: number): number[] {
  const o = (y * img.width + x) * 4;
  return [...img.data.subarray(o, o + 4)];
}

/** A hand-built PNG with a chosen colour type and one filter for every row. */
function rawPng(
  width: number,
  height: number,
  colorType: number,
  channels: number,
  filter: number,
  pixels: number[],
  extra: [string, number[]][] = [],
): Uint8Array {
  const stride = width * channels;
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(filter);
    for (let x = 0; x < stride; x++) {
      const v = pixels[y * stride + x] ?? 0;
      const left = x >= channels ? (pixels[y * stride + x - channels] ?? 0) : 0;
      rows.push(filter === 1 ? (v - left) & 0xff : v);
    }
  }
  const chunk = (type: string, body: Uint8Array) => {
    const out = Buffer.alloc(12 + body.length);
    out.writeUInt32BE(body.length, 0);
    out.write(type, 4, "latin1");
    Buffer.from(body).copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colorType;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    ...extra.map(([t, b]) => chunk(t, Uint8Array.from(b))),
    chunk("IDAT", deflateSync(Uint8Array.from(rows))),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

describe("PNG codec", () => {
  test("RGB round trip is lossless and encodes as colour type 2", () => {
    const img = gradient(61, 37);
    const png = encodePng(img);
    expect(pngSize(png)).toEqual({ width: 61, height: 37 });
    expect(png[25]).toBe(2);
    expect(decodePng(png).data).toEqual(img.data);
  });

  test("RGBA round trip keeps alpha", () => {
    const img = gradient(20, 9, true);
    const png = encodePng(img);
    expect(png[25]).toBe(6);
    expect(decodePng(png).data).toEqual(img.data);
  });

  test("decodes grey, grey+alpha and palette images, with Sub filtering", () => {
    const grey = decodePng(rawPng(3, 1, 0, 1, 1, [10, 20, 30]));
    expect(pixel(grey, 2, 0)).toEqual([30, 30, 30, 255]);
    const ga = decodePng(rawPng(2, 1, 4, 2, 0, [50, 128, 60, 255]));
    expect(pixel(ga, 0, 0)).toEqual([50, 50, 50, 128]);
    const pal = decodePng(
      rawPng(
        2,
        1,
        3,
        1,
        0,
        [1, 0],
        [
          ["PLTE", [1, 2, 3, 200, 100, 50]],
          ["tRNS", [255, 7]],
        ],
      ),
    );
    expect(pixel(pal, 0, 0)).toEqual([200, 100, 50, 7]);
    expect(pixel(pal, 1, 0)).toEqual([1, 2, 3, 255]);
  });

  test("refuses what it does not support instead of guessing", () => {
    expect(() => decodePng(new Uint8Array([1, 2, 3]))).toThrow(/not a PNG/);
    const png = rawPng(2, 2, 2, 3, 0, new Array(12).fill(9));
    png[24] = 16;
    expect(() => decodePng(png)).toThrow(/unsupported/);
  });
});

describe("annotation drawing", () => {
  test("a box outline in its colour at every edge, inside untouched, label above with white digits", () => {
    const img = gradient(200, 120);
    const before = decodePng(encodePng(img));
    const drawn = drawAnnotations(img, [{ ref: 3, x: 40, y: 50, w: 100, h: 40 }], 1);
    expect(drawn).toBe(1);
    const c = [...colourFor(3), 255];
    for (const [x, y] of [
      [40, 70],
      [41, 70],
      [139, 70],
      [90, 50],
      [90, 89],
    ] as const)
      expect(pixel(img, x, y)).toEqual(c);
    expect(pixel(img, 90, 70)).toEqual(pixel(before, 90, 70));
    expect(pixel(img, 39, 70)).toEqual(pixel(before, 39, 70));
    // Label "3" sits above the top-left corner: background colour with some white pixels.
    const size = labelSize("3", 2);
    let white = 0;
    for (let y = 50 - size.h; y < 50; y++)
      for (let x = 40; x < 40 + size.w; x++) if (pixel(img, x, y).join() === "255,255,255,255") white++;
    expect(white).toBeGreaterThan(10);
    expect(pixel(img, 40, 50 - size.h)).toEqual(c);
    // The drawn image survives encoding.
    expect(decodePng(encodePng(img)).data).toEqual(img.data);
  });

  test("boxes off the image are not drawn or counted; partly visible ones are clipped; labels stay inside", () => {
    const img = gradient(100, 60);
    const n = drawAnnotations(
      img,
      [
        { ref: 1, x: -50, y: -50, w: 20, h: 20 },
        { ref: 2, x: 150, y: 10, w: 20, h: 20 },
        { ref: 4, x: 80, y: 0, w: 50, h: 30 },
        { ref: 5, x: 10, y: 10, w: 0, h: 10 },
      ],
      1,
    );
    expect(n).toBe(1);
    expect(pixel(img, 80, 20)).toEqual([...colourFor(4), 255]);
  });

  test("the palette cycles by ref", () => {
    expect(colourFor(1)).toEqual(PALETTE[1] ?? [0, 0, 0]);
    expect(colourFor(1 + PALETTE.length)).toEqual(colourFor(1));
  });
});
