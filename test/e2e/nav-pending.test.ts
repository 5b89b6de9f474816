/**
 * An action's navigation wait is bounded as docs/actions.md says: a link to a server that
 * answers late returns once the bound is over, saying the navigation is still pending (where
 * to, for how long) instead of holding the agent until the server answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, refNamed } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const SLOW_MS = 9_000;
const site = startFixtureServer({
  "/start": `<!doctype html><title>Start</title><a href="/slow">Slow page</a>`,
  "/slow": () => new Promise<Response>((r) => setTimeout(() => r(new Response("<!doctype html><title>Slow</title><p>finally</p>", { headers: { "content-type": "text/html" } })), SLOW_MS)),
});
const env = makeBpEnv();
const run = (args: string[]) => env.run(args, { key: "agent-nav-pending" });

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/start`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
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
});
