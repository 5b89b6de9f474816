import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { colourFor } from "../../src/broker/capture/draw.ts";
import { decodePng, pngSize, type RgbaImage } from "../../src/broker/capture/png.ts";
import { BP, makeBpEnv } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

/** Styles are inline on purpose; the CSP forbids connect-src and scripts, as hostile pages do. */
const CSP =
  "default-src 'self' http://localhost:* http://127.0.0.1:*; style-src 'unsafe-inline'; script-src 'none'; connect-src 'none'";
const abs = (style: string) => `style="position:absolute;${style}"`;
const capturePage = (b: string) => `<!doctype html><title>Capture</title><body style="margin:0">
<button id=go ${abs("left:40px;top:30px;width:120px;height:40px")}>Go</button>
<input id=name ${abs("left:40px;top:100px;width:200px;height:30px")} placeholder=Name>
<iframe id=fr src="${b}/inner" ${abs("left:300px;top:150px;width:300px;height:150px;border:0")}></iframe>
<div id=box ${abs("left:50px;top:400px;width:123px;height:77px;background:#0f0")}></div>
<div style="height:3000px"></div></body>`;
const inner = `<!doctype html><body style="margin:0;background:#fee"><button id=ib ${abs("left:30px;top:40px;width:100px;height:30px")}>Inner</button></body>`;

let site: ReturnType<typeof startFixtureServer>;
site = startFixtureServer({
  ...PAGES,
  "/capture": () =>
    new Response(capturePage(site.b), { headers: { "content-type": "text/html", "content-security-policy": CSP } }),
  "/inner": inner,
});
const out = mkdtempSync(join(tmpdir(), "bp-capture-out-"));
const env = makeBpEnv({ BROWSER_PILOT_OUTPUT_DIR: out });
const K = "capture-agent";

type Snap = { elements: { r: number; t: string; n?: string; f?: string; b: [number, number, number, number] }[] };
let snap: Snap;

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await env.run(["open", `${site.a}/capture`, "--new"], { key: K })).json).toMatchObject({
    ok: true,
    title: "Capture",
  });
  const s = await env.run(["snapshot", "--boxes"], { key: K });
  expect(s.json.ok).toBe(true);
  snap = s.json as unknown as Snap;
});

afterAll(async () => {
  await env.cleanup();
  site.stop();
  // BP_KEEP_OUT=1 keeps the images for a look.
  if (!process.env.BP_KEEP_OUT) rmSync(out, { recursive: true, force: true });
});

type FileResult = {
  ok: boolean;
  file: string;
  mimeType?: string;
  sizeBytes: number;
  width: number;
  height: number;
  annotationCount?: number;
  preview?: { file: string; mimeType: string; width: number; height: number; sizeBytes: number };
};

/** The format is fixed by the command, so the reply names no mimeType; the file's own first bytes say what it is. */
function checkFile(r: FileResult, mimeType: "image/png" | "application/pdf"): Uint8Array {
  expect(r.ok).toBe(true);
  expect(r).not.toHaveProperty("mimeType");
  const st = statSync(r.file);
  expect(st.mode & 0o777).toBe(0o600);
  expect(st.size).toBe(r.sizeBytes);
  const bytes = new Uint8Array(readFileSync(r.file));
  const magic = mimeType === "image/png" ? "\x89PNG" : "%PDF";
  expect(Buffer.from(bytes.subarray(0, 4)).toString("latin1")).toBe(magic);
  return bytes;
}

function pixel(img: RgbaImage, x: number, y: number): number[] {
  const o = (Math.round(y) * img.width + Math.round(x)) * 4;
  return [...img.data.subarray(o, o + 3)];
}

describe("bp screenshot", () => {
  test("default name lands in BROWSER_PILOT_OUTPUT_DIR as a 0600 PNG of the viewport", async () => {
    const r = (await env.run(["screenshot"], { key: K })).json as unknown as FileResult;
    expect(r.file.startsWith(`${out}/`)).toBe(true);
    expect(r.file).toMatch(/\/screenshot-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(-\d+)?\.png$/);
    const bytes = checkFile(r, "image/png");
    expect(pngSize(bytes)).toEqual({ width: r.width, height: r.height });
    expect(r.height).toBeLessThan(1000);
    // A second default capture within the same second gets its own name.
    const again = (await env.run(["screenshot"], { key: K })).json as unknown as FileResult;
    expect(again.file).not.toBe(r.file);
  });

  test("explicit relative names: inside the output dir, or the CLI's working directory without one", async () => {
    mkdirSync(join(out, "shots"));
    const r = (await env.run(["screenshot", "shots/a.png"], { key: K })).json as unknown as FileResult;
    expect(r.file).toBe(join(out, "shots", "a.png"));
    checkFile(r, "image/png");

    const cwd = mkdtempSync(join(tmpdir(), "bp-capture-cwd-"));
    const { BROWSER_PILOT_OUTPUT_DIR: _drop, ...noOut } = env.env;
    const proc = Bun.spawn([BP, "screenshot", "here.png"], {
      cwd,
      env: { ...noOut, BROWSER_PILOT_CLIENT_KEY: K },
      stdout: "pipe",
      stderr: "pipe",
    });
    const json = JSON.parse(await new Response(proc.stdout).text()) as FileResult;
    expect(json.file).toBe(join(cwd, "here.png"));
    checkFile(json, "image/png");
    rmSync(cwd, { recursive: true, force: true });
  });

  test("--full is taller than the viewport and comes with a model-sized JPEG preview", async () => {
    const view = (await env.run(["screenshot", "view.png"], { key: K })).json as unknown as FileResult;
    const r = (await env.run(["screenshot", "full.png", "--full"], { key: K })).json as unknown as FileResult;
    checkFile(r, "image/png");
    expect(r.height).toBeGreaterThanOrEqual(3000);
    expect(r.height).toBeGreaterThan(view.height);
    const p = r.preview;
    expect(p?.file).toBe(join(out, "full.preview.jpg"));
    expect(p?.mimeType).toBe("image/jpeg");
    expect(Math.max(p?.width ?? 0, p?.height ?? 0)).toBeLessThanOrEqual(1568);
    expect((p?.width ?? 0) * (p?.height ?? 0)).toBeLessThanOrEqual(1_150_000);
    const jpeg = readFileSync(p?.file ?? "");
    expect([jpeg[0], jpeg[1]]).toEqual([0xff, 0xd8]);
    expect(statSync(p?.file ?? "").mode & 0o777).toBe(0o600);
  });

  test("--selector clips to the first match's box, even partly below the fold", async () => {
    const r = (await env.run(["screenshot", "box.png", "--selector", "#box"], { key: K }))
      .json as unknown as FileResult;
    const img = decodePng(checkFile(r, "image/png"));
    expect([r.width, r.height]).toEqual([123, 77]);
    expect(pixel(img, 60, 38)).toEqual([0, 255, 0]);
    const miss = await env.run(["screenshot", "--selector", "#nope"], { key: K });
    expect(miss.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "selector" } });
  });

  test("--annotate draws one box per ref, in the broker, lined up inside a cross-origin iframe, without touching the DOM", async () => {
    const refs = snap.elements.filter((e) => typeof e.r === "number" && Array.isArray(e.b));
    const go = refs.find((e) => e.n === "Go");
    const innerBtn = refs.find((e) => e.n === "Inner");
    expect(innerBtn?.f).toBe("1");
    const before = await env.run(["eval", "document.documentElement.outerHTML"], { key: K });
    const r = (await env.run(["screenshot", "ann.png", "--annotate"], { key: K })).json as unknown as FileResult;
    const img = decodePng(checkFile(r, "image/png"));
    expect(r.annotationCount).toBe(refs.length);
    for (const e of [go, innerBtn]) {
      const [x, y, , h] = e?.b ?? [0, 0, 0, 0];
      expect(pixel(img, x + 1, y + h / 2)).toEqual([...colourFor(e?.r ?? 0)]);
    }
    // The inner button's box is where the page draws it: the plain capture shows button face there, not our colour.
    const plain = decodePng(readFileSync(join(out, "view.png")));
    const [ix, iy, , ih] = innerBtn?.b ?? [0, 0, 0, 0];
    expect(pixel(plain, ix + 1, iy + ih / 2)).not.toEqual([...colourFor(innerBtn?.r ?? 0)]);
    const after = await env.run(["eval", "document.documentElement.outerHTML"], { key: K });
    expect(after.json.value).toBe(before.json.value);
  });

  test("--annotate with a ref list, unknown refs, and incompatible flags", async () => {
    const go = snap.elements.find((e) => e.n === "Go");
    const r = (await env.run(["screenshot", "one.png", "--annotate", String(go?.r)], { key: K }))
      .json as unknown as FileResult;
    expect(r.annotationCount).toBe(1);
    expect((await env.run(["screenshot", "x.png", "--annotate", "999"], { key: K })).json).toMatchObject({
      ok: false,
      code: "stale_ref",
      context: { reason: "unknown_ref" },
    });
    for (const args of [
      ["--full", "--annotate"],
      ["--selector", "#box", "--annotate"],
      ["--annotate", "--full"],
    ]) {
      const bad = await env.run(["screenshot", "x.png", ...args], { key: K });
      expect(bad.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "annotate" } });
    }
    expect(existsSync(join(out, "x.png"))).toBe(false);
  });

  test("human output names the file, size and bytes", async () => {
    const r = await env.run(["screenshot", "human.png", "--human"], { key: K });
    expect(r.stdout.trim()).toMatch(
      new RegExp(`^✓ Screenshot saved to ${join(out, "human.png")} \\(\\d+x\\d+, \\d+ bytes\\)$`),
    );
  });

  test("escapes from the output dir are refused and nothing is written outside", async () => {
    const outside = mkdtempSync(join(tmpdir(), "bp-capture-outside-"));
    symlinkSync(outside, join(out, "escape"));
    symlinkSync(join(outside, "victim.png"), join(out, "link.png"));
    for (const name of ["../x.png", join(outside, "x.png"), "escape/x.png", "link.png"]) {
      const r = await env.run(["screenshot", name], { key: K });
      expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "file" } });
    }
    expect((await env.run(["pdf", "../x.pdf"], { key: K })).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "file" },
    });
    expect(readdirSync(outside)).toEqual([]);
    rmSync(outside, { recursive: true, force: true });
  });

  test("a document replaced since the snapshot makes --annotate stale, not wrong", async () => {
    await env.run(["reload"], { key: K });
    const r = await env.run(["screenshot", "stale.png", "--annotate"], { key: K });
    expect(r.json).toMatchObject({ ok: false, code: "stale_ref", context: { reason: "document_replaced" } });
    await env.run(["snapshot"], { key: K });
    expect((await env.run(["screenshot", "fresh.png", "--annotate"], { key: K })).json.ok).toBe(true);
  });
});

describe("bp pdf", () => {
  test("headless print: default name, %PDF, 0600; --landscape", async () => {
    const r = (await env.run(["pdf"], { key: K })).json as unknown as FileResult;
    expect(r.file).toMatch(new RegExp(`^${out}/page-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d(-\\d+)?\\.pdf$`));
    const bytes = checkFile(r, "application/pdf");
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe("%PDF-");
    const land = (await env.run(["pdf", "land.pdf", "--landscape"], { key: K })).json as unknown as FileResult;
    expect(Buffer.from(checkFile(land, "application/pdf").subarray(0, 4)).toString()).toBe("%PDF");
  });
});
