/**
 * The host policy ($BROWSER_PILOT_HOME/policy.json) against real Chromium, through a recording
 * hop so a refusal can be shown to make no browser call at all. Origin `b` (localhost) is the
 * denied one; `a` (127.0.0.1) the allowed page that must stay.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startCdpRecorder, type CdpRecorder } from "../support/cdp-recorder.ts";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, refNamed, waitFor } from "../support/bp.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

requireChromium();

/** Requests that reached the server's /probe page, as "host/n": the server's word, not bp's. */
const probed = new Set<string>();
const site = startFixtureServer({
  ...PAGES,
  "/probe": (url) => {
    probed.add(`${url.host}/${url.searchParams.get("n") ?? ""}`);
    return "<!doctype html><title>Probe</title><p>probe</p>";
  },
  "/redir": (url) => new Response(null, { status: 302, headers: { location: url.searchParams.get("to") ?? "/" } }),
});
const B_HOST = new URL(site.b).hostname;
const env = makeBpEnv();
const POLICY = join(env.home, "policy.json");
const A = "policy-a";
const K2 = "policy-k2";
let browser: UserBrowser;
let rec: CdpRecorder;

function writePolicy(p: unknown, mode = 0o600): void {
  mkdirSync(env.home, { recursive: true, mode: 0o700 });
  writeFileSync(POLICY, typeof p === "string" ? p : JSON.stringify(p));
  chmodSync(POLICY, mode);
}
const run = (args: string[], key = A) => env.run(args, { key });
const echo = (html: string) =>
  `${site.a}/echo?html=${encodeURIComponent(`<!doctype html><title>Allowed</title>${html}`)}`;
/** CDP commands the broker sent since the last mark, but the janitor's idle keepalive probe (src/janitor/main.ts). */
const sentSinceMark = () =>
  rec
    .mark()
    .map((x) => x.method)
    .filter((m) => m !== "Browser.getVersion");
/** What the policy stopped, as the given replies (in order) reported it. */
const blockedIn = (...replies: { json: Record<string, unknown> }[]) =>
  replies.flatMap((r) => (r.json.policyBlocked as unknown[] | undefined) ?? []);
const href = async (key = A) => String((await run(["eval", "location.href"], key)).json.value);

beforeAll(async () => {
  browser = await startUserBrowser();
  rec = startCdpRecorder(browser.wsEndpoint);
  expect((await run(["connect", "--cdp-url", rec.url])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  rec.stop();
  await browser.stop();
  site.stop();
});

describe("host policy", () => {
  test("a denied command or option is refused before any browser call", async () => {
    expect((await run(["open", `${site.a}/`, "--new"])).json.ok).toBe(true);
    writePolicy({ deny: ["screenshot", "cookies --values", "net"] });
    expect((await run(["status"])).json.ok).toBe(true);
    rec.mark();
    for (const args of [["screenshot"], ["cookies", "--values"], ["net", "mock", "*", "--body", "x"], ["net"]]) {
      const r = await run(args);
      expect(r.json.code).toBe("policy_denied");
      expect(r.json.retryable).toBe(false);
      expect(r.json.context?.rule).toBe("deny");
    }
    expect(sentSinceMark()).toEqual([]);
    expect((await run(["cookies"])).json.ok).toBe(true);
    const schema = await run(["schema", "cookies"]);
    expect(schema.json.denied).toEqual({ options: ["values"] });
    expect((await run(["schema", "screenshot"])).json.denied).toEqual({ command: true });
    expect((await run(["screenshot", "--help"])).stdout).toContain("Denied by the host policy");
    expect((await run(["--help"])).stdout).toMatch(/screenshot.*\[denied by host policy\]/);
    const status = await run(["status"]);
    expect(status.json.policy).toMatchObject({ deny: ["screenshot", "cookies --values", "net"] });
    expect(String((status.json.policy as { digest: string }).digest)).toMatch(/^[0-9a-f]{12}$/);
  });

  test("a per-key section narrows that key only; a changed file holds from the next command", async () => {
    writePolicy({ keys: { [K2]: { deny: ["eval"] } } });
    expect((await run(["open", `${site.a}/`, "--new"], K2)).json.ok).toBe(true);
    expect((await run(["eval", "1+1"], K2)).json.code).toBe("policy_denied");
    expect((await run(["eval", "1+1"])).json.value).toBe(2);
    writePolicy({});
    expect((await run(["eval", "1+1"], K2)).json.value).toBe(2);
    writePolicy({ deny: ["eval"] });
    expect((await run(["eval", "1+1"])).json.code).toBe("policy_denied");
  });

  test("a malformed, widening or world-writable file fails closed, with no browser call", async () => {
    rec.mark();
    writePolicy("{ not json");
    let r = await run(["eval", "1"]);
    expect(r.json.code).toBe("policy_invalid");
    expect((await run(["status"])).json.code).toBe("policy_invalid");
    writePolicy({ deny: ["evaluate"] });
    r = await run(["tabs"]);
    expect(r.json).toMatchObject({ code: "policy_invalid", context: { field: "deny[0]" } });
    writePolicy({ origins: { allow: ["127.0.0.1"] }, keys: { [A]: { origins: { allow: ["example.com"] } } } });
    expect((await run(["tabs"])).json.context?.field).toBe(`keys.${A}.origins.allow[0]`);
    writePolicy({ origins: { deny: ["bad host!"] } });
    expect((await run(["tabs"])).json.context?.field).toBe("origins.deny[0]");
    writePolicy({}, 0o666);
    r = await run(["tabs"]);
    expect(r.json).toMatchObject({ code: "policy_invalid", context: { field: "mode" } });
    expect(sentSinceMark()).toEqual([]);
    chmodSync(POLICY, 0o600);
    expect((await run(["tabs"])).json.ok).toBe(true);
  });

  test("no bp command writes the policy file", async () => {
    writePolicy({ keys: { nobody: { deny: ["eval"] } } });
    const before = readFileSync(POLICY, "utf8");
    expect((await run(["screenshot", POLICY])).json).toMatchObject({
      code: "policy_denied",
      context: { rule: "policy_file" },
    });
    expect((await env.run(["screenshot", "policy.json", "--force"], { key: A, cwd: env.home })).json.code).toBe(
      "policy_denied",
    );
    expect((await run(["pdf", POLICY])).json.code).toBe("policy_denied");
    // Through a directory link to the home.
    const side = mkdtempSync(join(tmpdir(), "bp-policy-link-"));
    symlinkSync(env.home, join(side, "h"));
    expect((await run(["screenshot", join(side, "h", "policy.json")])).json.code).toBe("policy_denied");
    rmSync(side, { recursive: true, force: true });
    expect(readFileSync(POLICY, "utf8")).toBe(before);
  });

  test("origins: open, link, redirect, popup and fetch to a denied origin are stopped; the allowed page stays", async () => {
    writePolicy({ origins: { deny: [B_HOST] } });
    // The change itself brings the tabs' interception in line (with the next command).
    expect((await run(["status"])).json.ok).toBe(true);
    rec.mark();
    const open = await run(["open", `${site.b}/second`]);
    expect(open.json).toMatchObject({ code: "policy_denied", context: { rule: "origins.deny", entry: B_HOST } });
    expect(sentSinceMark()).toEqual([]);

    // A link.
    expect((await run(["open", echo(`<a href="${site.b}/probe?n=link">Go away</a>`), "--new"])).json.ok).toBe(true);
    const allowed = await href();
    const click = await run(["click", await refNamed((a) => run(a), "Go away")]);
    expect(click.json.policyBlocked).toEqual([
      { kind: "navigation", url: `${site.b}/probe?n=link`, rule: "origins.deny", entry: B_HOST },
    ]);
    expect(await href()).toBe(allowed);

    // A redirect from the allowed origin to the denied one.
    const redir = await run(["open", `${site.a}/redir?to=${encodeURIComponent(`${site.b}/probe?n=redirect`)}`]);
    expect(redir.json).toMatchObject({
      code: "policy_denied",
      retryable: false,
      context: { rule: "origins.deny", url: `${site.b}/probe?n=redirect` },
      // The failure carries the list too: the CLI used to rebuild errors without it.
      policyBlocked: [{ kind: "navigation", url: `${site.b}/probe?n=redirect`, rule: "origins.deny" }],
    });
    expect(await href()).toBe(allowed);

    // A popup.
    expect(
      (await run(["open", echo(`<button onclick="window.open('${site.b}/probe?n=popup', '_blank')">Pop</button>`)]))
        .json.ok,
    ).toBe(true);
    const opener = await href();
    const pop = await run(["click", await refNamed((a) => run(a), "Pop")]);
    await Bun.sleep(300);
    const listed = await run(["tabs"]);
    // The popup's first request may come after the click's reply: then the next reply says it.
    expect(blockedIn(pop, listed)).toEqual([
      { kind: "popup", url: `${site.b}/probe?n=popup`, rule: "origins.deny", entry: B_HOST },
    ]);
    const tabs = listed.json.tabs as { url: string }[];
    // The popup is there, but its page never committed.
    expect(tabs.some((t) => t.url.startsWith(site.b))).toBe(false);
    expect(await href()).toBe(opener);

    // The page's own fetch.
    const fetched = await run([
      "eval",
      `fetch('${site.b}/probe?n=fetch').then(() => 'loaded', (e) => 'failed: ' + e.name)`,
    ]);
    expect(fetched.json.value).toBe("failed: TypeError");
    expect(fetched.json.policyBlocked).toEqual([
      { kind: "request", url: `${site.b}/probe?n=fetch`, rule: "origins.deny", entry: B_HOST },
    ]);
    expect(await href()).toBe(opener);
    const journal = (await run(["net", "--type", "fetch"])).json.requests as { url: string; rule?: string }[];
    expect(journal.find((e) => e.url === `${site.b}/probe?n=fetch`)?.rule).toBe("blocked policy");
    // The server's own word: none of them reached it.
    expect([...probed].filter((p) => p.startsWith(new URL(site.b).host))).toEqual([]);
  });

  test("noopener popups and target=_blank links to a denied origin are stopped too", async () => {
    writePolicy({ origins: { deny: [B_HOST] } });
    expect(
      (
        await run([
          "open",
          echo(
            `<a href="${site.b}/probe?n=blank" target=_blank>Blank</a><button onclick="window.open('${site.b}/probe?n=noopener', '_blank', 'noopener')">NoOpener</button>`,
          ),
          "--new",
        ])
      ).json.ok,
    ).toBe(true);
    const blank = await run(["click", await refNamed((a) => run(a), "Blank")]);
    const between = await run(["snapshot"]);
    const noopener = await run([
      "click",
      String((between.json.elements as { r: number; n?: string }[]).find((e) => e.n === "NoOpener")?.r),
    ]);
    await Bun.sleep(1000);
    const listed = await run(["tabs"]);
    expect(blockedIn(blank, between, noopener, listed)).toEqual([
      { kind: "popup", url: `${site.b}/probe?n=blank`, rule: "origins.deny", entry: B_HOST },
      { kind: "popup", url: `${site.b}/probe?n=noopener`, rule: "origins.deny", entry: B_HOST },
    ]);
    const tabs = listed.json.tabs as { url: string }[];
    expect(tabs.filter((t) => t.url.startsWith(site.b))).toEqual([]);
    expect([...probed].filter((p) => p.startsWith(new URL(site.b).host))).toEqual([]);
  });

  test("a history move back to a page of an origin denied since is stopped", async () => {
    writePolicy({});
    expect((await run(["open", `${site.b}/second`, "--new"])).json.ok).toBe(true);
    expect((await run(["open", `${site.a}/third`])).json.ok).toBe(true);
    writePolicy({ origins: { deny: [B_HOST] } });
    expect((await run(["back"])).json).toMatchObject({
      code: "policy_denied",
      context: { rule: "origins.deny", url: `${site.b}/second` },
    });
    expect(await href()).toBe(`${site.a}/third`);
  });

  test("a frame to a denied origin never loads; the server never sees it", async () => {
    writePolicy({ origins: { deny: [B_HOST] } });
    expect((await run(["open", echo("<p>Frames</p>"), "--new"])).json.ok).toBe(true);
    const url = `${site.b}/probe?n=frame`;
    const r = await run([
      "eval",
      `new Promise((done) => { const f = document.createElement('iframe'); f.onload = () => done('load'); f.src = ${JSON.stringify(url)}; document.body.append(f); setTimeout(() => done('timeout'), 3000); })`,
    ]);
    expect(r.json.ok).toBe(true);
    expect(r.json.policyBlocked).toEqual([{ kind: "navigation", url, rule: "origins.deny", entry: B_HOST }]);
    const allowed = `${site.a}/probe?n=frame`;
    await run([
      "eval",
      `new Promise((done) => { const f = document.createElement('iframe'); f.onload = () => done(1); f.src = ${JSON.stringify(allowed)}; document.body.append(f); })`,
    ]);
    expect(probed.has(`${new URL(site.a).host}/frame`)).toBe(true);
    expect(probed.has(`${new URL(site.b).host}/frame`)).toBe(false);
  });

  test("a person who has the tab (handoff) browses freely; the agent after the handback does not", async () => {
    writePolicy({ origins: { deny: [B_HOST] } });
    expect((await run(["open", echo("<p>Sign in</p>"), "--new"])).json.ok).toBe(true);
    const here = await href();
    expect((await run(["handoff", "--message", "sign in"])).json.ok).toBe(true);
    const target = (await listPageTargets(browser.port)).find((t) => t.url === here);
    if (!target) throw new Error("the handed-off tab is not listed");
    // The person, in their own browser: not through bp.
    const ws = new WebSocket(`ws://127.0.0.1:${browser.port}/devtools/page/${target.id}`);
    await new Promise((r) => ws.addEventListener("open", r, { once: true }));
    ws.send(
      JSON.stringify({
        id: 1,
        method: "Runtime.evaluate",
        params: { expression: `location.href = ${JSON.stringify(`${site.b}/probe?n=person`)}` },
      }),
    );
    await waitFor(() => probed.has(`${new URL(site.b).host}/person`), 15_000, "the person's navigation");
    ws.close();
    expect((await run(["handback"])).json.ok).toBe(true);
    expect(
      (await run(["eval", `fetch(${JSON.stringify(`${site.b}/probe?n=agent`)}).then(() => 'loaded', () => 'failed')`]))
        .json.value,
    ).toBe("failed");
    expect(probed.has(`${new URL(site.b).host}/agent`)).toBe(false);
  });

  test("origins.allow: only listed origins load", async () => {
    writePolicy({ origins: { allow: [`http://127.0.0.1:${new URL(site.a).port}`] } });
    expect((await run(["open", `${site.b}/`])).json).toMatchObject({
      code: "policy_denied",
      context: { rule: "origins.allow" },
    });
    expect((await run(["open", `${site.a}/second`])).json.ok).toBe(true);
    const r = await run(["eval", `fetch('${site.b}/second').then(() => 'loaded', () => 'failed')`]);
    expect(r.json.value).toBe("failed");
    expect((r.json.policyBlocked as { rule: string }[])[0]?.rule).toBe("origins.allow");
  });

  test("a download over the cap is cancelled and says so; new tabs open while pages are held at start", async () => {
    writePolicy({ origins: { deny: ["example.invalid"] }, files: { downloads: { maxBytes: 1000 } } });
    expect((await run(["open", `${site.a}/files`, "--new"])).json.ok).toBe(true);
    const click = await run(["click", await refNamed((a) => run(a), "Big file")]);
    expect(click.json.ok).toBe(true);
    const d = await waitFor(
      async () => {
        const list = (await run(["downloads"])).json.downloads as { fileName: string; state: string; error?: string }[];
        return list.find((x) => x.fileName === "big.bin" && x.state !== "in_progress");
      },
      20_000,
      "the capped download to end",
    );
    expect(d).toMatchObject({ state: "failed", error: "policy_denied" });
    writePolicy({});
  });

  test("tabAccess own for a key hides the tabs it did not create", async () => {
    writePolicy({});
    const all = (await run(["tabs"], "policy-watch")).json.tabs as unknown[];
    writePolicy({ keys: { "policy-watch": { tabAccess: "own" } } });
    const own = (await run(["tabs"], "policy-watch")).json.tabs as unknown[];
    expect(all.length).toBeGreaterThan(0);
    expect(own).toEqual([]);
  });

  test("uploads only from the listed directories; downloads off", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bp-policy-up-"));
    const other = mkdtempSync(join(tmpdir(), "bp-policy-other-"));
    writeFileSync(join(dir, "ok.txt"), "ok");
    writeFileSync(join(other, "no.txt"), "no");
    writePolicy({ files: { uploadDirs: [dir], downloads: "off" } });
    expect((await run(["open", echo(`<label>File <input type=file></label>`)])).json.ok).toBe(true);
    const ref = await refNamed((a) => run(a), "File");
    rec.mark();
    expect((await run(["upload", ref, join(other, "no.txt")])).json).toMatchObject({
      code: "policy_denied",
      context: { rule: "files.uploadDirs" },
    });
    expect((await run(["download", "dl1"])).json).toMatchObject({
      code: "policy_denied",
      context: { rule: "files.downloads" },
    });
    expect(sentSinceMark()).toEqual([]);
    expect((await run(["upload", ref, join(dir, "ok.txt")])).json.ok).toBe(true);
    rmSync(dir, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
    writePolicy({});
  });
});
