/**
 * console, storage, emulate and saved state against real Chromium: the page logs and throws;
 * storage round-trips; emulation is read back by the page and never touches a person's tab;
 * a login (HttpOnly cookie and localStorage) persists through state save/load into a fresh
 * launched profile.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { readPortFile } from "../../src/discovery/index.ts";
import { makeBpEnv, refNamed, waitFor } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { resultViolations } from "../support/result-check.ts";
import { openUserTab } from "../support/user-browser.ts";
import { findCommand, matchCommandName } from "../../src/protocol/table.ts";

requireChromium();

const LOGIN_SECRET = "sid-7f3a9c2e";
const site = startFixtureServer({
  "/console": `<!doctype html><title>Console</title><button id=b onclick="null.boom()">Break</button><button onclick="this.textContent += '!'">Break2</button><script>
    console.log("hello", { a: 1 }, [1, 2]);
    console.warn("careful");
    console.error("bad thing");
    fetch("/missing").catch(() => {});
    setTimeout(() => { throw new Error("boom"); }, 0);
  </script>`,
  "/plain": "<!doctype html><title>Plain</title><p>plain</p>",
  "/mobile": "<!doctype html><meta name=viewport content='width=device-width'><title>Mobile</title><p>mobile</p>",
  "/login": () =>
    new Response("<!doctype html><title>Logged in</title><script>localStorage.setItem('token', 'tok-123')</script>", {
      headers: { "content-type": "text/html", "set-cookie": `sid=${LOGIN_SECRET}; HttpOnly; Path=/; Max-Age=3600` },
    }),
  "/whoami": (_url, req) => {
    const who = /(?:^|; )sid=([^;]+)/.exec(req.headers.get("cookie") ?? "")?.[1] === LOGIN_SECRET ? "ada" : "nobody";
    return new Response(
      `<!doctype html><title>Who</title><p id=who>${who}</p><p id=tok></p><script>document.getElementById('tok').textContent = localStorage.getItem('token') ?? 'none'</script>`,
      { headers: { "content-type": "text/html" } },
    );
  },
});
const env = makeBpEnv();
const A = "devtools-agent-a";
const B = "devtools-agent-b";
/** Every success is checked against its command's published result schema. */
async function run(args: string[], key = A) {
  const r = await env.run(args, { key });
  const name = matchCommandName(args)?.name;
  const def = name === undefined ? undefined : await findCommand(name);
  if (r.json.ok && def) expect([args.join(" "), resultViolations(def.result, r.json)]).toEqual([args.join(" "), []]);
  return r;
}
const evalValue = async (expr: string, key = A) => (await run(["eval", expr], key)).json.value;

type Msg = { id: number; level: string; text: string; kind?: string; source?: string; time: string };

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("bp console", () => {
  test("console calls, uncaught errors and failed requests, by level and cursor, per agent", async () => {
    expect((await run(["open", `${site.a}/console`, "--new"])).json.ok).toBe(true);
    const all: Msg[] =
      (await waitFor(
        async () => {
          const m = (await run(["console"])).json.messages as Msg[];
          return m.some((x) => x.kind === "exception") && m.some((x) => x.kind === "network") ? m : undefined;
        },
        10_000,
        "the page's messages",
      )) ?? [];
    expect(all.find((m) => m.text.startsWith("hello"))).toMatchObject({ level: "log", text: "hello {a: 1} [1, 2]" });
    expect(all.find((m) => m.text.startsWith("hello"))?.source).toContain("/console:");
    expect(all.find((m) => m.text === "careful")?.level).toBe("warning");
    expect(all.find((m) => m.text === "bad thing")?.level).toBe("error");
    expect(all.find((m) => m.kind === "exception")).toMatchObject({ level: "error" });
    expect(all.find((m) => m.kind === "exception")?.text).toContain("Error: boom");
    expect(all.find((m) => m.kind === "network")?.text).toContain("404");
    const errors = (await run(["console", "--level", "error"])).json.messages as Msg[];
    expect(errors.length).toBeGreaterThanOrEqual(3);
    expect(errors.every((m) => m.level === "error")).toBe(true);
    const warnings = (await run(["console", "--level", "warning"])).json.messages as Msg[];
    expect(warnings.map((m) => m.level)).toContain("warning");
    expect(warnings.map((m) => m.level)).not.toContain("log");

    const cursor = (await run(["console"])).json.nextCursor as number;
    await run(["eval", "console.info('later'); 1"]);
    const after = (await waitFor(
      async () => {
        const r = await run(["console", "--since", String(cursor)]);
        return (r.json.messages as Msg[]).length > 0 ? r.json : undefined;
      },
      5000,
      "the later message",
    )) ?? { messages: [], nextCursor: 0 };
    expect((after.messages as Msg[]).map((m) => [m.level, m.text])).toEqual([["info", "later"]]);
    expect(after.nextCursor).toBeGreaterThan(cursor);
    const human = await env.run(["--human", "console", "--level", "error"], { key: A });
    expect(human.stdout).toContain("bad thing");
    expect(human.stdout).not.toContain("careful");
    const limited = await run(["console", "--limit", "1"]);
    expect(limited.json).toMatchObject({ truncated: true });
    expect((limited.json.messages as Msg[]).map((m) => m.text)).toEqual(["later"]);

    // An action that makes the page throw says so in its reply.
    const click = await run(["click", await refNamed((a) => run(a), "Break")]);
    expect(click.json.ok).toBe(true);
    const hint = (click.json.hints as { type: string; count: number; message: string }[] | undefined)?.find(
      (h) => h.type === "page_errors",
    );
    expect(hint?.count).toBe(1);
    expect(hint?.message).toContain("TypeError");
    expect(hint?.message).toContain("bp console --level error --since");
    // A quiet action has no such hint.
    const quiet = await run(["click", await refNamed((a) => run(a), "Break2")]);
    expect((quiet.json.hints as { type: string }[] | undefined)?.some((h) => h.type === "page_errors") ?? false).toBe(
      false,
    );

    // Another agent sees none of them, on its own tab.
    expect((await run(["open", `${site.a}/plain`, "--new"], B)).json.ok).toBe(true);
    expect((await run(["console"], B)).json.messages).toEqual([]);
  });

  test("bad input: an unknown level", async () => {
    const r = await run(["console", "--level", "debugging"]);
    expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "level" } });
  });
});

describe("bp storage", () => {
  test("set, get, list, remove and clear the tab origin's storage; long values cut unless --full", async () => {
    expect((await run(["open", `${site.a}/plain`, "--new"])).json.ok).toBe(true);
    expect((await run(["storage", "local", "set", "theme", "dark"])).json).toEqual({ ok: true, origin: site.a });
    expect(await evalValue("localStorage.getItem('theme')")).toBe("dark");
    expect((await run(["storage", "local", "get", "theme"])).json).toEqual({ ok: true, origin: site.a, value: "dark" });
    expect((await run(["storage", "local", "get", "nope"])).json).toMatchObject({ value: null });
    await run(["eval", "localStorage.setItem('big', 'x'.repeat(5000)); sessionStorage.setItem('s', '1'); 1"]);
    const got = await run(["storage", "local", "get", "big"]);
    expect(got.json).toMatchObject({ length: 5000 });
    expect(String(got.json.value).length).toBe(4000);
    expect(String((await run(["storage", "local", "get", "big", "--full"])).json.value).length).toBe(5000);
    const list = await run(["storage"]);
    const items = list.json.items as { key: string; value: string; length?: number }[];
    expect(items.find((i) => i.key === "theme")).toEqual({ key: "theme", value: "dark" });
    expect(items.find((i) => i.key === "big")?.length).toBe(5000);
    expect((await run(["storage", "session"])).json.items).toEqual([{ key: "s", value: "1" }]);
    expect((await run(["storage", "local", "remove", "theme"])).json).toMatchObject({ removed: true });
    expect((await run(["storage", "local", "clear"])).json).toMatchObject({ cleared: 1 });
    expect(await evalValue("localStorage.length")).toBe(0);
  });

  test("bad input: an operation without its area, a set without a value", async () => {
    expect((await run(["storage", "get", "x"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "area" },
    });
    expect((await run(["storage", "local", "set", "x"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "value" },
    });
  });
});

describe("bp emulate", () => {
  test("the page reads back viewport, scale, mobile, color scheme, time zone, locale, geolocation and offline; --reset undoes it", async () => {
    expect((await run(["open", `${site.a}/mobile`, "--new"])).json.ok).toBe(true);
    const before = (await evalValue("[innerWidth, navigator.userAgent]")) as [number, string];
    const r = await run([
      "emulate",
      "--viewport",
      "390x844",
      "--scale",
      "2",
      "--mobile",
      "--color-scheme",
      "dark",
      "--reduced-motion",
      "--timezone",
      "Asia/Tokyo",
      "--locale",
      "de-DE",
      "--geolocation",
      "52.52,13.4",
      "--offline",
      "--cpu-slowdown",
      "2",
    ]);
    expect(r.json).toMatchObject({
      ok: true,
      emulation: {
        viewport: "390x844",
        scale: 2,
        mobile: true,
        colorScheme: "dark",
        reducedMotion: true,
        timezone: "Asia/Tokyo",
        locale: "de-DE",
        geolocation: "52.52,13.4",
        offline: true,
        cpuSlowdown: 2,
      },
    });
    const seen = await evalValue(`(async () => {
      const pos = await new Promise((ok, no) => navigator.geolocation.getCurrentPosition((p) => ok([p.coords.latitude, p.coords.longitude]), (e) => no(e.message)));
      return {
        width: innerWidth, dpr: devicePixelRatio, touch: navigator.maxTouchPoints > 0, mobileUa: /Mobile/.test(navigator.userAgent),
        dark: matchMedia('(prefers-color-scheme: dark)').matches, reduced: matchMedia('(prefers-reduced-motion: reduce)').matches,
        tz: Intl.DateTimeFormat().resolvedOptions().timeZone, locale: Intl.DateTimeFormat().resolvedOptions().locale,
        online: navigator.onLine, pos,
      };
    })()`);
    expect(seen).toEqual({
      width: 390,
      dpr: 2,
      touch: true,
      mobileUa: true,
      dark: true,
      reduced: true,
      tz: "Asia/Tokyo",
      locale: "de-DE",
      online: false,
      pos: [52.52, 13.4],
    });
    // Alone: what is in force.
    expect((await run(["emulate"])).json).toEqual(r.json);
    const reset = await run(["emulate", "--reset"]);
    expect(reset.json).toEqual({ ok: true, emulation: {} });
    expect(await evalValue("[innerWidth, navigator.userAgent]")).toEqual(before);
    expect(await evalValue("navigator.onLine")).toBe(true);
    // Calls add up; a throttle replaces offline.
    expect((await run(["emulate", "--offline"])).json).toEqual({ ok: true, emulation: { offline: true } });
    expect((await run(["emulate", "--throttle", "fast-3g", "--color-scheme", "light"])).json).toEqual({
      ok: true,
      emulation: { throttle: "fast-3g", colorScheme: "light" },
    });
    expect(await evalValue("navigator.onLine")).toBe(true);
    const human = await env.run(["--human", "emulate"], { key: A });
    expect(human.stdout).toContain("throttle: fast-3g");
    expect((await run(["emulate", "--reset"])).json).toEqual({ ok: true, emulation: {} });
  });

  test("bad input: a 0x0 viewport, a malformed geolocation, an unknown time zone", async () => {
    expect((await run(["emulate", "--viewport", "0x0"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "viewport" },
    });
    expect((await run(["emulate", "--viewport", "wide"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "viewport" },
    });
    expect((await run(["emulate", "--geolocation", "95,0"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "geolocation" },
    });
    expect((await run(["emulate", "--offline", "--throttle", "slow-3g"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "offline" },
    });
    expect((await run(["emulate", "--timezone", "Mars/Olympus"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "timezone" },
    });
  });

  test("never on a person's tab, even one the agent has taken", async () => {
    const port = await readPortFile(join(env.home, "profiles", "default"));
    if (!port) throw new Error("launched browser has no DevToolsActivePort");
    await openUserTab(port.port, `${site.a}/plain?person`);
    const tab = await waitFor(
      async () =>
        ((await run(["tabs"])).json.tabs as { id: string; url: string }[]).find((t) => t.url.includes("?person")),
      10_000,
      "the person's tab",
    );
    expect((await run(["tab", tab?.id ?? ""])).json.ok).toBe(true);
    const width = await evalValue("innerWidth");
    const r = await run(["emulate", "--viewport", "320x480"]);
    expect(r.json).toMatchObject({ ok: false, code: "target_not_owned" });
    expect(await evalValue("innerWidth")).toBe(width);
  });
});

describe("bp state", () => {
  test("a login (HttpOnly cookie and localStorage) persists through save and load into a fresh launched profile", async () => {
    expect((await run(["open", `${site.a}/login`, "--new"])).json.ok).toBe(true);
    await waitFor(
      async () => (await evalValue("localStorage.getItem('token')")) === "tok-123",
      5000,
      "the login's token",
    );
    const saved = await run(["state", "save", "login"]);
    expect(saved.json).toEqual({ ok: true, cookies: 1, origins: [site.a], items: 1 });
    expect(saved.stdout).not.toContain(LOGIN_SECRET);
    const file = join(env.home, "state", A, "login.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.home, "state", A)).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, "utf8")).toContain(LOGIN_SECRET);
    expect((await run(["state", "save", "login"])).json).toMatchObject({ replaced: true });
    expect((await run(["state", "list"])).json).toMatchObject({
      ok: true,
      states: [{ name: "login", cookies: 1, origins: [site.a] }],
    });
    // Another agent has no such state.
    expect((await run(["state", "list"], B)).json).toEqual({ ok: true, states: [] });
    expect((await run(["state", "load", "login"], B)).json).toMatchObject({ ok: false, code: "artifact_not_found" });

    // A fresh profile: not logged in, until the state is loaded.
    expect((await run(["disconnect"])).json.ok).toBe(true);
    expect((await run(["disconnect"], B)).json.ok).toBe(true);
    await env.stop();
    expect((await run(["launch", "--headless", "--profile", "fresh"])).json.ok).toBe(true);
    expect((await run(["open", `${site.a}/whoami`, "--new"])).json.ok).toBe(true);
    expect(await evalValue("[who.textContent, tok.textContent]")).toEqual(["nobody", "none"]);
    const loaded = await run(["state", "load", "login"]);
    expect(loaded.json).toEqual({ ok: true, cookies: 1, origins: [site.a], items: 1 });
    expect((await run(["reload"])).json.ok).toBe(true);
    expect(await evalValue("[who.textContent, tok.textContent]")).toEqual(["ada", "tok-123"]);
    expect(
      ((await run(["cookies"])).json.cookies as { name: string; httpOnly?: boolean }[]).find((c) => c.name === "sid"),
    ).toMatchObject({ httpOnly: true });
    // The internal page that restored localStorage is gone and was never listed.
    expect(((await run(["tabs"])).json.tabs as unknown[]).length).toBe(1);

    expect((await run(["state", "remove", "login"])).json).toEqual({ ok: true });
    expect((await run(["state", "remove", "login"])).json).toMatchObject({ ok: false, code: "artifact_not_found" });
  });

  test("bad input: a state name with '/'; a tab with no web page to save", async () => {
    for (const cmd of ["save", "load", "remove"]) {
      expect((await run(["state", cmd, "../evil"])).json).toMatchObject({
        ok: false,
        code: "invalid_argument",
        context: { field: "name" },
      });
    }
    expect((await run(["open", "about:blank", "--new"])).json.ok).toBe(true);
    expect((await run(["state", "save", "blank"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "tab", reason: "no_origin" },
    });
  });
});
