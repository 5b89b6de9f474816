/**
 * Requests whose end Chrome reports elsewhere or never: the journal still ends them, and
 * `bp wait --network-idle` is not held by them (real Chromium, two sites).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeBpEnv, waitFor } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

/** How long a held answer stays open: far beyond every wait below, so only an ended entry lets them hold. */
const HOLD_MS = 30_000;
const held: (() => void)[] = [];
/** An answer that only comes after HOLD_MS (or when the server stops). */
const hold = () =>
  new Promise<void>((r) => {
    const t = setTimeout(r, HOLD_MS);
    held.push(() => {
      clearTimeout(t);
      r();
    });
  });

const site = startFixtureServer({
  "/second": "<!doctype html><title>Second</title><p>Second page</p>",
  "/slow-second": () =>
    new Promise<Response>((r) =>
      setTimeout(
        () =>
          r(new Response("<!doctype html><title>Slow second</title>", { headers: { "content-type": "text/html" } })),
        1_000,
      ),
    ) as unknown as Response,
  // A frame document that sends 4 KB (enough to commit and run its script), then keeps its body open.
  "/trickle": () => {
    const head = `<!doctype html><title>Trickle</title><p>Trickling</p><script>parent.postMessage('alive', '*')</script><!--${"x".repeat(4096)}-->`;
    const body = new ReadableStream({
      async start(c) {
        c.enqueue(new TextEncoder().encode(head));
        await hold();
        c.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/html" } });
  },
  // Adds a cross-site trickling frame once asked (or once a slow fetch ends); with ?auto it removes the frame as soon as it runs.
  "/trickle-host": () => `<!doctype html><title>Trickle host</title><script>
    window.alive = false;
    window.gone = false;
    function add() { const f = document.createElement('iframe'); f.src = '${site.b}/trickle'; document.body.append(f); }
    function later() { fetch('/slow-keep').then(add); }
    addEventListener('message', (e) => { if (e.data !== 'alive') return; window.alive = true; if (location.search === '?auto') { document.querySelector('iframe').remove(); window.gone = true; } });
  </script>`,
  // Analytics before leaving: a keepalive POST fired in the same turn as the navigation.
  "/slow-keep": () =>
    new Promise<Response>((r) => setTimeout(() => r(new Response("kept")), 1_500)) as unknown as Response,
  "/keep": `<!doctype html><title>Keep</title><button onclick="leave()">Leave</button><script>
    function leave() { fetch('/slow-keep', { method: 'POST', body: 'x', keepalive: true }); location.href = '/second'; }
    function leaveLater() { fetch('/slow-keep').then(leave); }
    // The old document still runs while a slow navigation waits for its answer: its keepalive fetch comes after the navigation's start.
    function leaveSlow() { fetch('/slow-keep').then(() => { location.href = '/slow-second'; setTimeout(() => fetch('/slow-keep', { method: 'POST', body: 'x', keepalive: true }), 100); }); }
  </script>`,
  // A cross-site frame that navigates back to its parent's site (and so into the parent's process).
  "/hop": () =>
    `<!doctype html><title>Hop</title><script>onload = () => { location.href = '${site.a}/home-again'; }</script>`,
  "/home-again": "<!doctype html><title>Home again</title><p>Home again</p>",
  "/hop-host": () => `<!doctype html><title>Hop host</title><iframe src="${site.b}/hop"></iframe>`,
  // A favicon whose answer never comes before the tab moves on.
  "/hang-icon": async () => {
    await hold();
    return new Response("", { headers: { "content-type": "image/png" } });
  },
  "/iconic": `<!doctype html><title>Iconic</title><link rel=icon href="/hang-icon"><p>Iconic</p>`,
});
const env = makeBpEnv();
const KEY = "agent-net-ends";
const run = (args: string[]) => env.run(args, { key: KEY });

type Req = { url: string; type: string; status?: number; error?: string; time?: number };
const entries = async (url: string): Promise<Req[]> =>
  ((await run(["net", "--url", url, "--limit", "1000"])).json.requests as Req[] | undefined) ?? [];
const idle = (timeout: number) => run(["wait", "--network-idle", "--timeout", String(timeout)]);
const refOf = async (name: string): Promise<string> => {
  const els = await waitFor(
    async () => {
      const list = (await run(["snapshot"])).json.elements as { r: number; n?: string }[] | undefined;
      return list?.find((e) => e.n === name);
    },
    10_000,
    `an element named ${name}`,
  );
  return String(els?.r);
};

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/second`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  for (const end of held) end();
  site.stop();
});

describe("a cross-site frame removed while its document still loads", () => {
  test("its document ends in the journal (canceled) and the tab goes network-idle", async () => {
    expect((await run(["open", `${site.a}/trickle-host`])).json.ok).toBe(true);
    await run(["eval", "add(); 1"]);
    await waitFor(async () => (await run(["eval", "window.alive"])).json.value === true, 10_000, "the frame's script");
    await run(["eval", "document.querySelector('iframe').remove(); 1"]);
    // Held: the document (in the tab's scope, its end due on the frame's session) stays open until the body ends.
    expect((await idle(5_000)).json).toMatchObject({ ok: true });
    const doc = (await entries(`${site.b}/trickle`)).at(-1);
    expect(doc).toMatchObject({ type: "document", status: 200, error: "canceled" });
  });

  test("a wait already running when the frame comes and goes is not held by its document", async () => {
    expect((await run(["open", `${site.a}/trickle-host?auto`])).json.ok).toBe(true);
    // The frame comes when a 1.5 s fetch ends, so while the wait is held by that fetch (its
    // document begins on the tab's session under the wait's eyes), and goes as soon as it runs.
    await run(["eval", "later(); 1"]);
    expect((await idle(8_000)).json).toMatchObject({ ok: true });
    expect((await run(["eval", "window.gone"])).json.value).toBe(true);
  });
});

describe("what the old document started as the tab moved on", () => {
  test("a keepalive fetch sent in the same turn as the navigation does not hold wait --network-idle", async () => {
    expect((await run(["open", `${site.a}/keep`])).json.ok).toBe(true);
    expect((await run(["click", await refOf("Leave")])).json.ok).toBe(true);
    await waitFor(
      async () => ((await run(["eval", "location.pathname"])).json.value === "/second" ? true : undefined),
      10_000,
      "the navigation",
    );
    expect((await entries("/slow-keep")).length).toBeGreaterThan(0);
    expect((await idle(6_000)).json).toMatchObject({ ok: true });
  });

  test("a wait already running as the tab moves on is not held by the keepalive fetch either", async () => {
    expect((await run(["open", `${site.a}/keep`])).json.ok).toBe(true);
    const before = (await entries("/slow-keep")).length;
    // It leaves when a 1.5 s fetch ends: under the eyes of the wait, which that fetch holds.
    await run(["eval", "leaveLater(); 1"]);
    expect((await idle(8_000)).json).toMatchObject({ ok: true });
    expect((await run(["eval", "location.pathname"])).json.value).toBe("/second");
    // The slow fetch and the keepalive one.
    expect((await entries("/slow-keep")).length).toBe(before + 2);
  });

  test("nor by one the old document sends after the navigation began", async () => {
    expect((await run(["open", `${site.a}/keep`])).json.ok).toBe(true);
    const before = (await entries("/slow-keep")).length;
    await run(["eval", "leaveSlow(); 1"]);
    expect((await idle(8_000)).json).toMatchObject({ ok: true });
    expect((await run(["eval", "location.pathname"])).json.value).toBe("/slow-second");
    expect((await entries("/slow-keep")).length).toBe(before + 2);
    // The journal ended it too (it started after the navigation did, but is the old document's): a later wait is free.
    expect((await idle(5_000)).json).toMatchObject({ ok: true });
  });

  test("a favicon cut off by a quick navigation does not hold wait --network-idle", async () => {
    expect((await run(["open", `${site.a}/iconic`])).json.ok).toBe(true);
    await waitFor(
      async () => ((await entries("/hang-icon")).length > 0 ? true : undefined),
      10_000,
      "the favicon's request",
    );
    expect((await run(["open", `${site.a}/second`])).json.ok).toBe(true);
    expect((await idle(5_000)).json).toMatchObject({ ok: true });
    expect((await entries("/hang-icon")).at(-1)).toMatchObject({ error: "canceled" });
  });
});

describe("a cross-site frame navigating back to its parent's site", () => {
  test("its document is journalled as loaded, not canceled", async () => {
    expect((await run(["open", `${site.a}/hop-host`])).json.ok).toBe(true);
    await waitFor(
      async () =>
        (await run(["eval", "document.querySelector('iframe').contentDocument?.title === 'Home again'"])).json.value ===
        true,
      10_000,
      "the frame back home",
    );
    const doc = await waitFor(
      async () => (await entries(`${site.a}/home-again`)).find((e) => e.time !== undefined || e.error !== undefined),
      10_000,
      "the frame's document to end",
    );
    expect(doc).toMatchObject({ type: "document", status: 200 });
    expect(doc).not.toHaveProperty("error");
    expect(doc).toHaveProperty("time");
  });
});
