/**
 * An action's navigation wait is bounded as docs/actions.md says: a link to a server that
 * answers late returns once the bound is over, saying the navigation is still pending (where
 * to, for how long) instead of holding the agent until the server answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, refNamed, waitFor } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

// A server that answers only when the test is over (no idle cut-off, unlike the fixture server's 10 s).
const released: (() => void)[] = [];
const hang = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch: () =>
    new Promise<Response>((r) =>
      released.push(() =>
        r(new Response("<!doctype html><title>Late</title>", { headers: { "content-type": "text/html" } })),
      ),
    ),
});
const SLOW_MS = 9_000;
const site = startFixtureServer({
  "/start": `<!doctype html><title>Start</title><a href="/slow">Slow page</a>`,
  "/here": () =>
    `<!doctype html><title>Here</title><a href="http://127.0.0.1:${hang.port}/never">Never page</a><button>Stay</button>`,
  "/slow": () =>
    new Promise<Response>((r) =>
      setTimeout(
        () =>
          r(
            new Response("<!doctype html><title>Slow</title><p>finally</p>", {
              headers: { "content-type": "text/html" },
            }),
          ),
        SLOW_MS,
      ),
    ),
});
const env = makeBpEnv();
// The broker takes its stall threshold from the environment of the call that starts it.
env.env.BROWSER_PILOT_NAV_STALL_MS = "3000";
const run = (args: string[]) => env.run(args, { key: "agent-nav-pending" });

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/start`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  for (const r of released) r();
  hang.stop(true);
  site.stop();
});

describe("a navigation to a slow server", () => {
  test("the click answers within the bound with the pending navigation; the page is there once it loads", async () => {
    const link = await refNamed(run, "Slow page");
    const started = performance.now();
    const r = await run(["click", link]);
    const took = performance.now() - started;
    expect(r.json.ok).toBe(true);
    const ev = r.json.evidence as { effects?: string[]; pendingNavigation?: { url?: string; ms: number } };
    expect(ev.effects).toContain("navigation");
    expect(ev.pendingNavigation?.url).toBe(`${site.a}/slow`);
    expect(ev.pendingNavigation?.ms).toBeGreaterThanOrEqual(2_500);
    expect(String(r.json.hint)).toContain("still loading");
    expect(took).toBeLessThan(SLOW_MS - 2_000);
    const waited = await run(["wait", "--url", "*/slow", "--timeout", "20000"]);
    expect(waited.json.ok).toBe(true);
    expect((await run(["snapshot"])).json.title).toBe("Slow");
  }, 60_000);

  test("while the server has not answered, page commands fail fast with navigation_pending; bp stop keeps the page shown, refs and all", async () => {
    const hangUrl = `http://127.0.0.1:${hang.port}/never`;
    expect((await run(["open", `${site.a}/here`])).json.ok).toBe(true);
    const link = await refNamed(run, "Never page");
    const stay = await refNamed(run, "Stay");
    expect((await run(["click", link])).json.evidence).toMatchObject({ pendingNavigation: { url: hangUrl } });
    // Chrome holds every page call until the new document commits: without the gate this hung for the server.
    const started = performance.now();
    const snap = await run(["snapshot"]);
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(snap.json).toMatchObject({
      ok: false,
      code: "navigation_pending",
      retryable: true,
      context: { url: hangUrl },
      remediation: { code: "stop_loading" },
    });
    expect((snap.json.context as { ms: number }).ms).toBeGreaterThanOrEqual(2_000);
    // The agent moves on to another tab: its replies there say the first one is still stuck.
    const first = (await run(["tabs"])).json.tabs as { id: string; selected?: boolean }[];
    const stuck = first.find((t) => t.selected)?.id ?? "";
    expect((await run(["open", `${site.a}/start`, "--new"])).json.ok).toBe(true);
    await waitFor(
      async () => {
        const hints = ((await run(["tabs"])).json.hints ?? []) as { type: string; tab?: string; url?: string }[];
        return hints.some((h) => h.type === "navigation_stalled" && h.tab === stuck && h.url === hangUrl);
      },
      10_000,
      "a navigation_stalled hint naming the stuck tab",
    );
    expect((await run(["tab", stuck])).json.ok).toBe(true);
    const stopped = await run(["stop"]);
    expect(stopped.json).toMatchObject({ ok: true, stopped: { url: hangUrl } });
    expect(stopped.json.url).toBe(`${site.a}/here`);
    // The page shown before stays, with the refs the agent already holds.
    const after = await run(["snapshot"]);
    expect(after.json).toMatchObject({ ok: true, title: "Here" });
    expect((await run(["click", stay])).json.ok).toBe(true);
    // Nothing pending: stop says so and changes nothing.
    expect((await run(["stop"])).json).not.toHaveProperty("stopped");
  }, 60_000);
});
