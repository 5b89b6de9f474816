import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, waitFor, type BpResult } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

// Cross-origin frames (site.b inside site.a) run in their own renderer, with their own CDP
// session: their requests are not the tab's session's.
const site = startFixtureServer({
  // A frame whose button fetches a slow answer and renders it.
  "/frame-answer": () =>
    new Promise<Response>((r) => setTimeout(() => r(new Response("Answer 42")), 700)) as unknown as Response,
  // It fetches when asked by the top document too (a message).
  "/fetcher": `<!doctype html><title>Fetcher</title><p id=out></p>
    <button onclick="ask()">Fetch answer</button>
    <script>
      function ask() { fetch('/frame-answer').then((r) => r.text()).then((t) => { document.getElementById('out').innerHTML = '<button>' + t + '</button>'; }); }
      addEventListener('message', (e) => { if (e.data === 'ask') ask(); });
    </script>`,
  "/framed-fetch": () =>
    `<!doctype html><title>Framed fetch</title><button onclick="document.querySelector('iframe').contentWindow.postMessage('ask', '*')">Ask the frame</button><iframe src="${site.b}/fetcher" width=400 height=200></iframe>`,
  // A frame that polls an address every 25 ms on its own, beside buttons that change at once.
  "/frame-ping": () => new Response("pong"),
  "/poller": `<!doctype html><title>Poller</title><button onclick="this.textContent = 'Inner ' + (window.n = (window.n || 0) + 1)">Inner count</button>
    <script>setInterval(() => fetch('/frame-ping?t=' + Date.now()).catch(() => {}), 25);</script>`,
  // A frame that polls its list every 100 ms, and whose Refresh button GETs the same address (from its own call site; answered after 300 ms).
  "/frame-items": (url) =>
    (url.searchParams.has("fresh")
      ? new Promise<Response>((r) => setTimeout(() => r(new Response("Fresh list")), 300))
      : new Response("[]")) as unknown as Response,
  "/list": `<!doctype html><title>List</title><p id=out></p>
    <button onclick="fetch('/frame-items?fresh=1').then((r) => r.text()).then((t) => { document.getElementById('out').innerHTML = '<button>' + t + '</button>'; })">Refresh list</button>
    <script>setInterval(() => fetch('/frame-items?t=' + Date.now()).catch(() => {}), 100);</script>`,
  "/framed-list": () =>
    `<!doctype html><title>Framed list</title><button>Top</button><iframe src="${site.b}/list" width=400 height=200></iframe>`,
  // A frame document answered after 500 ms, and pages that add one (cross-site, same-site) or point an in-process one at it.
  "/slowframe": () =>
    new Promise<Response>((r) =>
      setTimeout(
        () =>
          r(
            new Response("<!doctype html><title>Slow frame</title><p>Slow frame</p>", {
              headers: { "content-type": "text/html" },
            }),
          ),
        500,
      ),
    ) as unknown as Response,
  "/add-frame": () =>
    `<!doctype html><title>Add frame</title><button onclick="const f = document.createElement('iframe'); f.src = '${site.b}/slowframe'; document.body.append(f)">Add frame</button>`,
  "/add-frame-same": `<!doctype html><title>Add frame</title><button onclick="const f = document.createElement('iframe'); f.src = '/slowframe'; document.body.append(f)">Add frame</button>`,
  "/to-b": () => Response.redirect(`${site.b}/slowframe`, 302),
  "/add-frame-redirect": `<!doctype html><title>Add frame</title><button onclick="const f = document.createElement('iframe'); f.src = '/to-b'; document.body.append(f)">Add frame</button>`,
  "/swap-frame": () =>
    `<!doctype html><title>Swap frame</title><button onclick="document.querySelector('iframe').src = '${site.b}/slowframe'">Swap frame</button><iframe src="/second"></iframe>`,
  // A frame that fetches by itself a moment after it loads, with an answer that takes 1.5 s.
  "/late-data": () =>
    new Promise<Response>((r) => setTimeout(() => r(new Response("Late data")), 1500)) as unknown as Response,
  "/late": `<!doctype html><title>Late</title><p id=out></p>
    <script>setTimeout(() => fetch('/late-data').then((r) => r.text()).then((t) => { document.getElementById('out').innerHTML = '<button>' + t + '</button>'; }), 200);</script>`,
  "/framed-late": () =>
    `<!doctype html><title>Framed late</title><button>Top</button><iframe src="${site.b}/late" width=400 height=200></iframe>`,
  "/framed-poll": () => `<!doctype html><title>Framed poll</title>
    <button onclick="this.textContent = 'Top ' + (window.n = (window.n || 0) + 1)">Top count</button><iframe src="${site.b}/poller" width=400 height=200></iframe>`,
});
const env = makeBpEnv();
const KEY = "agent-settle-frames";
const run = (args: string[]) => env.run(args, { key: KEY });

type El = { r: number; n?: string };
type Evidence = { status?: string; effects?: string[] };
const evidence = (r: BpResult) => r.json.evidence as Evidence;
const added = (r: BpResult) => ((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n ?? "");
const refOf = async (name: string): Promise<string> => {
  const els = await waitFor(
    async () => {
      const list = (await run(["snapshot"])).json.elements as El[] | undefined;
      return list?.some((e) => e.n === name) ? list : undefined;
    },
    10_000,
    `an element named ${name}`,
  );
  return String(els?.find((e) => e.n === name)?.r);
};

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/framed-fetch`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("requests of out-of-process frames are watched by the action", () => {
  test("a click in a cross-origin frame whose handler fetches a slow answer: the reply shows the rendered answer", async () => {
    for (let i = 0; i < 2; i++) {
      await run(["open", `${site.a}/framed-fetch`]);
      const r = await run(["click", await refOf("Fetch answer")]);
      expect(evidence(r)).toMatchObject({ status: "verified" });
      expect(evidence(r).effects).toEqual(expect.arrayContaining(["network_requests", "dom_changed"]));
      expect(added(r)).toContain("Answer 42");
    }
  });

  test("a click in the top document that makes a cross-origin frame fetch: the reply shows what the frame rendered", async () => {
    await run(["open", `${site.a}/framed-fetch`]);
    const r = await run(["click", await refOf("Ask the frame")]);
    expect(evidence(r).effects).toEqual(expect.arrayContaining(["network_requests"]));
    expect(added(r)).toContain("Answer 42");
  });

  test("a click that loads a frame from another site: waited for until the frame's document lands, not held to the network cap", async () => {
    // The frame's navigation starts on the tab's session and ends on the new frame's own.
    for (const [page, loads] of [
      ["/add-frame", "a new cross-site frame"],
      ["/swap-frame", "an in-process frame sent cross-site"],
      ["/add-frame-redirect", "a new same-site frame redirected cross-site"],
      ["/add-frame-same", "a new same-site frame"],
    ]) {
      await run(["open", `${site.a}${page}`]);
      const ref = await refOf(page === "/swap-frame" ? "Swap frame" : "Add frame");
      const started = Date.now();
      const r = await run(["click", ref]);
      const took = Date.now() - started;
      expect(evidence(r).effects, loads).toEqual(expect.arrayContaining(["network_requests"]));
      // Its 500 ms answer is waited for…
      expect(took, loads).toBeGreaterThanOrEqual(500);
      // …and nothing more: a request left pending holds the action to the 3 s cap.
      expect(took, loads).toBeLessThan(1_500);
    }
  });

  test("a cross-origin frame's own polling does not hold an action in the frame or in the top document", async () => {
    await run(["open", `${site.a}/framed-poll`]);
    const inner = await refOf("Inner count");
    // Let the frame poll a while (its requests are followed from the frame's start): twelve ticks.
    await waitFor(
      async () =>
        (((await run(["net", "--url", "/frame-ping", "--limit", "1000"])).json.requests as unknown[] | undefined)
          ?.length ?? 0) >= 12,
      15_000,
      "twelve frame poll ticks",
    );
    for (const [i, name] of [inner, "Inner 1", "Top count", "Top 1"].entries()) {
      const ref = i === 0 ? inner : await refOf(name);
      const started = Date.now();
      const r = await run(["click", ref]);
      expect(evidence(r)).toMatchObject({ status: "verified" });
      expect(evidence(r).effects ?? []).not.toContain("network_requests");
      // Taking every tick for the action's settles again and again until the 3 s cap (the
      // bound leaves room for a loaded machine's slow process start, not for the cap).
      expect(Date.now() - started).toBeLessThan(2_500);
    }
  });

  test("a click in a cross-origin frame whose handler GETs the address the frame polls: its answer is waited for", async () => {
    await run(["open", `${site.a}/framed-list`]);
    const refresh = await refOf("Refresh list");
    await waitFor(
      async () =>
        (((await run(["net", "--url", "/frame-items", "--limit", "1000"])).json.requests as unknown[] | undefined)
          ?.length ?? 0) >= 12,
      15_000,
      "twelve frame poll ticks",
    );
    const r = await run(["click", refresh]);
    expect(evidence(r).effects).toEqual(expect.arrayContaining(["network_requests", "dom_changed"]));
    expect(added(r)).toContain("Fresh list");
  });
});

describe("bp wait --network-idle", () => {
  test("counts the requests of cross-origin frames: a frame's slow fetch after load is waited for, not those of a frame that went", async () => {
    // A frame that polls goes with the page, a request in flight (its end never comes).
    await run(["open", `${site.a}/framed-poll`]);
    await waitFor(
      async () =>
        (((await run(["net", "--url", "/frame-ping", "--limit", "1000"])).json.requests as unknown[] | undefined)
          ?.length ?? 0) >= 12,
      15_000,
      "twelve frame poll ticks",
    );
    await run(["open", `${site.a}/framed-late`]);
    const w = await run(["wait", "--network-idle", "--timeout", "15000"]);
    expect(w.json.ok).toBe(true);
    const els = ((await run(["snapshot"])).json.elements as El[]).map((e) => e.n);
    expect(els).toContain("Late data");
  });
});
