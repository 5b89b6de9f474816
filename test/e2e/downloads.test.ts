/**
 * Downloads against real Chromium: ownership by the agent whose tab started them, private
 * copies, evidence, waits, failures, quotas and export paths. The browser bp launched saves
 * into bp's private directory only: nothing lands in the (fake) person's ~/Downloads.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeBpEnv, waitFor, type BpResult } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { LARGE_DOWNLOAD_BYTES, startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const site = startFixtureServer();
const root = mkdtempSync(join(tmpdir(), "bp-dl-"));
const fakeHome = join(root, "person");
const out = join(root, "out");
mkdirSync(fakeHome);
mkdirSync(out);
const env = makeBpEnv({
  HOME: fakeHome,
  BROWSER_PILOT_OUTPUT_DIR: out,
  BROWSER_PILOT_STORE_ITEM_BYTES: String(8 * 1024 * 1024),
  BROWSER_PILOT_STORE_AGENT_BYTES: String(5 * 1024 * 1024),
});
const A = "dl-agent-a";
const B = "dl-agent-b";

type El = { r: number; t: string; n?: string; f?: string };
type Download = {
  id: string;
  fileName: string;
  state: string;
  sizeBytes?: number;
  mimeType?: string;
  error?: string;
  tab: string;
  url: string;
};

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
  rmSync(root, { recursive: true, force: true });
});

const run = (args: string[], key = A) => env.run(args, { key });
async function snapshot(key = A): Promise<BpResult & { els: El[] }> {
  const r = await run(["snapshot"], key);
  expect(r.json.ok).toBe(true);
  return { ...r, els: r.json.elements as El[] };
}
const ref = (els: El[], name: string) => String(els.find((e) => e.n === name)?.r ?? "missing");
const evidence = (r: BpResult) => r.json.evidence as { status: string; effects: string[]; downloads?: Download[] };

describe("isolated-world contexts across renderer processes", () => {
  test("after an error page, a page with a same-origin iframe is observed as the top document", async () => {
    expect((await run(["open", `${site.a}/files`, "--new"], B)).json.ok).toBe(true);
    await snapshot(B);
    // A refused connection shows Chrome's error page, rendered in another process.
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const deadUrl = `http://127.0.0.1:${dead.port}/`;
    dead.stop(true);
    expect((await run(["open", deadUrl], B)).json).toMatchObject({ ok: false, code: "navigation_failed" });
    await run(["snapshot"], B);
    expect((await run(["open", `${site.a}/files`], B)).json.ok).toBe(true);
    for (let i = 0; i < 3; i++) {
      const s = await snapshot(B);
      expect(s.json).toMatchObject({ title: "Files" });
      expect(s.els.map((e) => e.n)).toContain("Report");
    }
  });
});

describe("downloads", () => {
  test("a Content-Disposition download is download_started/completed evidence, not navigation; copied privately, exported on demand", async () => {
    expect((await run(["open", `${site.a}/files`, "--new"])).json.ok).toBe(true);
    const { els } = await snapshot();
    const r = await run(["click", ref(els, "Report")]);
    expect(r.json.ok).toBe(true);
    const ev = evidence(r);
    expect(ev.effects).toContain("download_started");
    expect(ev.effects).not.toContain("navigation");
    expect(ev.downloads?.[0]).toMatchObject({ id: "dl1", fileName: "report.csv", tab: "t1" });
    // The reply is the same document (a diff, or nothing changed), not a new page's elements.
    expect(r.json.elements).toBeUndefined();
    const w = await run(["wait", "--download", "--timeout", "15000"]);
    expect(w.json).toMatchObject({
      ok: true,
      matched: { download: { id: "dl1", state: "completed", sizeBytes: 14, mimeType: "text/csv" } },
    });
    const list = await run(["downloads"]);
    expect((list.json.downloads as Download[])[0]).toMatchObject({
      id: "dl1",
      fileName: "report.csv",
      state: "completed",
    });
    expect(typeof (list.json.downloads as Record<string, unknown>[])[0]?.expiresAt).toBe("string");
    const saved = await run(["download", "dl1"]);
    expect(saved.json).toMatchObject({ ok: true, file: join(out, "report.csv"), mimeType: "text/csv", sizeBytes: 14 });
    expect(readFileSync(join(out, "report.csv"), "utf8")).toBe("id,name\n1,Ada\n");
    expect(statSync(join(out, "report.csv")).mode & 0o777).toBe(0o600);
    // Exporting again never overwrites the first copy under a default name.
    const again = await run(["download", "dl1"]);
    expect(again.json.file).toBe(join(out, "report-2.csv"));
    // An explicit name that exists is replaced only with --force.
    expect((await run(["download", "dl1", "report.csv"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "file", reason: "exists" },
    });
    expect((await run(["download", "dl1", "report.csv", "--force"])).json).toMatchObject({
      ok: true,
      file: join(out, "report.csv"),
    });
    // Upstream's index form: a bare number names dlN.
    expect((await run(["download", "1", "by-index.csv"])).json).toMatchObject({
      ok: true,
      id: "dl1",
      file: join(out, "by-index.csv"),
    });
    // A launched browser saved into bp's private directory only, and that file went into the store.
    expect(existsSync(join(fakeHome, "Downloads"))).toBe(false);
    expect(readdirSync(join(env.home, "downloading"))).toEqual([]);
  });

  test("the tab's observation stays the top document afterwards (same-origin iframe page)", async () => {
    const s = await snapshot();
    expect(s.json).toMatchObject({ title: "Files" });
    expect(String(s.json.url)).toEndWith("/files");
    const names = s.els.map((e) => e.n);
    expect(names).toContain("Report");
    expect(names).toContain("Big file");
    // Reading works on the top document too.
    expect(String((await run(["eval", "document.title"])).json.value)).toBe("Files");
  });

  test("a large download completes after the click returns; wait --download reports it once", async () => {
    const { els } = await snapshot();
    const r = await run(["click", ref(els, "Big file")]);
    expect(evidence(r).effects).toContain("download_started");
    const w = await run(["wait", "--download", "--timeout", "30000"]);
    expect(w.json).toMatchObject({
      ok: true,
      matched: { download: { fileName: "big.bin", state: "completed", sizeBytes: LARGE_DOWNLOAD_BYTES } },
    });
    const id = (w.json.matched as { download: Download }).download.id;
    const saved = await run(["download", id, "copies/big.bin"]);
    expect(saved.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "file" } });
    mkdirSync(join(out, "copies"));
    const ok = await run(["download", id, "copies/big.bin"]);
    expect(ok.json).toMatchObject({ ok: true, sizeBytes: LARGE_DOWNLOAD_BYTES });
    expect(statSync(join(out, "copies", "big.bin")).size).toBe(LARGE_DOWNLOAD_BYTES);
    // Nothing more finished: the next wait times out instead of returning the same download.
    expect((await run(["wait", "--download", "--timeout", "300"])).json).toMatchObject({
      ok: false,
      code: "wait_timeout",
    });
  });

  test("a quota failure: nothing is stored, and nothing lands in the person's folder", async () => {
    const { els } = await snapshot();
    await run(["click", ref(els, "Big file")]);
    const w = await run(["wait", "--download", "--timeout", "30000"]);
    const d = (w.json.matched as { download: Download }).download;
    // 3 MiB already stored for this agent, 5 MiB allowed: the second big file does not fit.
    expect(d).toMatchObject({ state: "completed", error: "quota_exceeded" });
    expect((await run(["download", d.id])).json).toMatchObject({ ok: false, code: "quota_exceeded" });
    expect(existsSync(join(fakeHome, "Downloads"))).toBe(false);
  });

  test("a failing download is reported failed and has nothing to export", async () => {
    const { els } = await snapshot();
    await run(["click", ref(els, "Broken file")]);
    const w = await run(["wait", "--download", "--timeout", "30000"]);
    const d = (w.json.matched as { download: Download }).download;
    expect(d.fileName).toBe("broken.bin");
    expect(["failed", "canceled"]).toContain(d.state);
    expect((await run(["download", d.id])).json).toMatchObject({ ok: false, code: "artifact_not_found" });
  });

  test("another agent sees none of it; unknown ids are artifact_not_found; exports cannot escape", async () => {
    expect((await run(["downloads"], B)).json).toEqual({ ok: true, downloads: [] });
    expect((await run(["download", "dl1"], B)).json).toMatchObject({ ok: false, code: "artifact_not_found" });
    expect((await run(["download", "dl99"])).json).toMatchObject({ ok: false, code: "artifact_not_found" });
    expect((await run(["download", "dl1", "../outside.csv"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "file" },
    });
    expect((await run(["download", "dl1", join(env.home, "store", "x.csv")])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "file" },
    });
    const victim = join(root, "victim.txt");
    writeFileSync(victim, "keep");
    symlinkSync(victim, join(out, "link.csv"));
    expect((await run(["download", "dl1", "link.csv"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "file" },
    });
    expect(readFileSync(victim, "utf8")).toBe("keep");
    // B's own download on its own tab is B's alone.
    expect((await run(["open", `${site.b}/files`, "--new"], B)).json.ok).toBe(true);
    const { els } = await snapshot(B);
    await run(["click", ref(els, "Report")], B);
    const w = await run(["wait", "--download", "--timeout", "15000"], B);
    expect(w.json).toMatchObject({ ok: true, matched: { download: { id: "dl1", state: "completed" } } });
    expect(((await run(["downloads"])).json.downloads as Download[]).every((d) => d.url.startsWith(site.a))).toBe(true);
  });

  test("disconnect drops the agent's stored copies; a stopped broker leaves no store behind", async () => {
    const store = join(env.home, "store");
    expect(readdirSync(store).length).toBeGreaterThan(0);
    expect((await run(["disconnect"], A)).json.ok).toBe(true);
    expect((await run(["downloads"], A)).json).toEqual({ ok: true, downloads: [] });
    await env.stop();
    await waitFor(() => !existsSync(store), 10_000, "the store removed");
    // Exported files stay.
    expect(existsSync(join(out, "report.csv"))).toBe(true);
  });
});

describe("an expired copy", () => {
  const short = makeBpEnv({ HOME: fakeHome, BROWSER_PILOT_OUTPUT_DIR: out, BROWSER_PILOT_STORE_TTL_MS: "1500" });
  afterAll(() => short.cleanup());

  test("artifact_expired names the download's id, not the store's", async () => {
    expect((await short.run(["launch", "--headless"])).json.ok).toBe(true);
    expect((await short.run(["open", `${site.a}/files`, "--new"])).json.ok).toBe(true);
    const els = (await short.run(["snapshot"])).json.elements as El[];
    expect((await short.run(["click", ref(els, "Report")])).json.ok).toBe(true);
    expect((await short.run(["wait", "--download", "--timeout", "15000"])).json).toMatchObject({
      ok: true,
      matched: { download: { id: "dl1", state: "completed" } },
    });
    await Bun.sleep(1700);
    const r = await short.run(["download", "dl1", "late.csv"]);
    expect(r.json).toMatchObject({ ok: false, code: "artifact_expired", context: { field: "id", id: "dl1" } });
    expect(JSON.stringify(r.json)).not.toMatch(/"a\d+"/);
  });
});
