/**
 * Downloads on a remote browser, whose disk is not ours: bp reads the bytes through CDP (Fetch response streaming)
 * into the agent's store. A real Chromium behind the loopback "service" (test/support/remote-front.ts); the
 * browser's own saved file lies on its side and is never read (it stays empty).
 */
import { afterAll, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envPool, refNamed, waitFor, type BpEnv, type BpResult } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { startRemoteFront } from "../support/remote-front.ts";
import { openUserTab, startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

requireChromium();
const { newEnv, cleanupAll } = envPool();
const browsers: UserBrowser[] = [];
const root = mkdtempSync(join(tmpdir(), "bp-rdl-"));
const TOKEN = "svc-tok-5e4d3c2b1a";
const URL_SECRET = "dl-sig-0a9b8c7d6e";
/** Every byte value, in a pseudo-random order, across several 1 MiB reads. */
const BLOB = new Uint8Array(2.5 * 1024 * 1024);
for (let i = 0, x = 7; i < BLOB.length; i++) {
  x = (x * 1103515245 + 12345) >>> 0;
  BLOB[i] = x >>> 24;
}

/** Promises 1 MB (Content-Length), sends 4 KiB, then drops the connection: the only break CDP lets bp see. */
const broken = (() => {
  const server = createServer((c) => {
    c.on("error", () => undefined);
    c.once("data", () => {
      c.write(
        'HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="broken.bin"\r\nContent-Length: 1000000\r\n\r\n',
      );
      c.write(Buffer.alloc(4096));
      setTimeout(() => c.destroy(), 100);
    });
  }).listen(0, "127.0.0.1");
  return {
    server,
    get port() {
      return (server.address() as AddressInfo).port;
    },
  };
})();

const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const u = new URL(req.url);
    if (u.pathname === "/")
      return new Response(
        `<!doctype html><title>Files</title><a href="/export/data.bin?token=${URL_SECRET}">Data</a>
<a href="/export/report.csv">Report</a><a href="/raw.zip">Archive</a><a download="notes.txt" href="/notes">Notes</a>
<a href="http://127.0.0.1:${broken.port}/broken">Broken</a>`,
        { headers: { "content-type": "text/html" } },
      );
    if (u.pathname === "/later")
      return new Response(
        "<!doctype html><title>Later</title><script>setTimeout(() => { location.href = '/export/report.csv'; }, 5000)</script>",
        { headers: { "content-type": "text/html" } },
      );
    if (u.pathname === "/export/data.bin")
      return new Response(BLOB, {
        headers: {
          "content-type": "application/octet-stream",
          "content-disposition": 'attachment; filename="data.bin"',
        },
      });
    if (u.pathname === "/export/report.csv")
      return new Response("id,name\n1,Ada\n", {
        headers: { "content-type": "text/csv", "content-disposition": 'attachment; filename="report.csv"' },
      });
    if (u.pathname === "/raw.zip")
      return new Response(BLOB.slice(0, 1000), { headers: { "content-type": "application/zip" } });
    if (u.pathname === "/notes") return new Response("plain notes", { headers: { "content-type": "text/plain" } });
    return new Response("", { status: 404 });
  },
});

afterAll(async () => {
  await cleanupAll();
  for (const b of browsers) await b.stop();
  site.stop(true);
  broken.server.close();
  rmSync(root, { recursive: true, force: true });
});

async function remote(extra: Record<string, string> = {}) {
  const user = await startUserBrowser();
  browsers.push(user);
  const svc = await startRemoteFront(user.port, new URL(user.wsEndpoint).pathname, TOKEN);
  const out = join(root, `out-${browsers.length}`);
  mkdirSync(out);
  const env = newEnv({ BROWSER_PILOT_OUTPUT_DIR: out, ...extra });
  expect((await env.run(["connect", "--cdp-url", svc.url])).json).toMatchObject({ browser: { source: "remote" } });
  expect((await env.run(["open", `http://127.0.0.1:${site.port}/`, "--new"])).json.ok).toBe(true);
  return { user, svc, env, out };
}

async function download(env: BpEnv, name: string): Promise<{ click: BpResult; done: Record<string, unknown> }> {
  const click = await env.run(["click", await refNamed((a) => env.run(a), name)]);
  const w = await env.run(["wait", "--download", "--timeout", "30000"]);
  expect(w.json.ok).toBe(true);
  return { click, done: (w.json.matched as { download: Record<string, unknown> }).download };
}

/** What the browser saved on the service's side: empty, since bp took the body. */
function serviceCopy(user: UserBrowser, name: string): number | undefined {
  const p = join(user.home, "Downloads", name);
  return existsSync(p) ? statSync(p).size : undefined;
}

test("an attachment comes through CDP into the agent's store, byte for byte, with the local record's shape", async () => {
  const { user, svc, env, out } = await remote();
  try {
    const { click, done } = await download(env, "Data");
    expect(click.json.ok).toBe(true);
    const ev = click.json.evidence as { effects: string[]; downloads?: Record<string, unknown>[] };
    expect(ev.effects).toContain("download_started");
    expect(ev.effects).not.toContain("navigation");
    expect(ev.downloads?.[0]).toMatchObject({ id: "dl1", fileName: "data.bin", tab: "t1" });
    // The same fields as a local download's, no error.
    expect(Object.keys(done).sort()).toEqual(
      ["id", "fileName", "state", "url", "tab", "mimeType", "sizeBytes", "startedAt"].sort(),
    );
    expect(done).toMatchObject({ id: "dl1", state: "completed", sizeBytes: BLOB.length });
    // A signed link's token is a credential: masked in the record, as the endpoint's is.
    expect(String(done.url)).toEndWith("/export/data.bin?token=***");
    const saved = await env.run(["download", "dl1"]);
    expect(saved.json).toMatchObject({ ok: true, file: join(out, "data.bin"), sizeBytes: BLOB.length });
    expect(Buffer.compare(readFileSync(join(out, "data.bin")), Buffer.from(BLOB))).toBe(0);
    expect(serviceCopy(user, "data.bin")).toBe(0);

    // A text attachment, and a type browsers save without Content-Disposition.
    const csv = await download(env, "Report");
    expect(csv.done).toMatchObject({ fileName: "report.csv", state: "completed", sizeBytes: 14, mimeType: "text/csv" });
    expect((await env.run(["download", String(csv.done.id), "r.csv"])).json.ok).toBe(true);
    expect(readFileSync(join(out, "r.csv"), "utf8")).toBe("id,name\n1,Ada\n");
    const zip = await download(env, "Archive");
    expect(zip.done).toMatchObject({ state: "completed", sizeBytes: 1000 });
    expect(zip.done.error).toBeUndefined();

    // A download attribute on a page the browser would show: not known as a download until the browser decides,
    // so it stays on the service's disk (documented).
    const notes = await download(env, "Notes");
    expect(notes.done).toMatchObject({ fileName: "notes.txt", state: "completed", error: "remote_file_system" });

    // Nothing left in bp's own download directory; the page still works.
    expect(readdirSync(join(env.home, "downloading"))).toEqual([]);
    expect((await env.run(["eval", "document.title"])).json.value).toBe("Files");
    const list = await env.run(["downloads"]);
    for (const s of [TOKEN, URL_SECRET]) {
      expect(list.stdout).not.toContain(s);
      expect(click.stdout).not.toContain(s);
    }
  } finally {
    svc.stop();
  }
}, 120_000);

test("a tab taken with 'bp tab' captures a download its page starts by itself, before any other command", async () => {
  const { user, svc, env } = await remote();
  try {
    await openUserTab(user.port, `http://127.0.0.1:${site.port}/later`);
    const later = await waitFor(
      async () =>
        ((await env.run(["tabs"])).json.tabs as { id: string; title: string }[]).find((t) => t.title === "Later"),
      10_000,
      "the person's tab listed",
    );
    expect((await env.run(["tab", later?.id ?? ""])).json.ok).toBe(true);
    const w = await env.run(["wait", "--download", "--timeout", "30000"]);
    expect(w.json).toMatchObject({
      ok: true,
      matched: { download: { fileName: "report.csv", state: "completed", sizeBytes: 14 } },
    });
  } finally {
    svc.stop();
  }
}, 120_000);

test("past the store's item limit: quota_exceeded, nothing kept, nothing half-written", async () => {
  const { svc, env } = await remote({ BROWSER_PILOT_STORE_ITEM_BYTES: String(1024 * 1024) });
  try {
    const { done } = await download(env, "Data");
    expect(done).toMatchObject({ fileName: "data.bin", state: "completed", error: "quota_exceeded" });
    expect(done.sizeBytes).toBeUndefined();
    expect((await env.run(["download", String(done.id)])).json).toMatchObject({ ok: false });
    expect(readdirSync(join(env.home, "downloading"))).toEqual([]);
    // A small one after it still comes through.
    expect((await download(env, "Report")).done).toMatchObject({ state: "completed", sizeBytes: 14 });
  } finally {
    svc.stop();
  }
}, 120_000);

test("the host policy's cap stops the capture (policy_denied); a stream that breaks is failed; no file stays", async () => {
  const { svc, env } = await remote();
  try {
    writeFileSync(join(env.home, "policy.json"), JSON.stringify({ files: { downloads: { maxBytes: 100_000 } } }));
    chmodSync(join(env.home, "policy.json"), 0o600);
    const { click, done } = await download(env, "Data");
    expect(done).toMatchObject({ fileName: "data.bin", state: "failed", error: "policy_denied" });
    expect(click.json.ok).toBe(true);
    const broken = await download(env, "Broken");
    expect(broken.done).toMatchObject({ fileName: "broken.bin", state: "failed" });
    expect((await env.run(["download", String(broken.done.id)])).json).toMatchObject({ ok: false });
    expect(readdirSync(join(env.home, "downloading"))).toEqual([]);
  } finally {
    svc.stop();
  }
}, 120_000);
