/**
 * Workers a page starts run as in plain Chromium under bp: the network session's auto-attach
 * holds new dedicated workers, and the broker must let each run and leave it (real Chromium,
 * two sites; a browser bp connects to, so the test can ask it which targets have a client).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeBpEnv, waitFor, type BpEnv } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

requireChromium();

const js = (body: string) => () => new Response(body, { headers: { "content-type": "text/javascript" } });
/** Starts a blob: worker, a script-URL worker and one that starts a nested worker; answers with what each said, or "timeout" after 3 s. */
const ASK = `function askWorkers() {
  const one = (w) => new Promise((r) => { w.onmessage = (e) => r(String(e.data)); w.onerror = () => r('error'); setTimeout(() => r('timeout'), 3000); });
  return Promise.all([
    one(new Worker(URL.createObjectURL(new Blob(["postMessage('blob')"])))),
    one(new Worker('/echo.js')),
    one(new Worker('/outer.js')),
  ]);
}`;
const site = startFixtureServer({
  "/echo.js": js("postMessage('script'); onmessage = (e) => postMessage('echo ' + e.data)"),
  "/inner.js": js("postMessage('nested')"),
  "/outer.js": js("const n = new Worker('/inner.js'); n.onmessage = (e) => postMessage('outer+' + e.data)"),
  "/shared.js": js("onconnect = (e) => e.ports[0].postMessage('shared')"),
  "/sw.js": js("addEventListener('install', () => skipWaiting())"),
  "/workers": `<!doctype html><title>Workers</title><p id=out>none</p>
    <button onclick="(window.w ??= (() => { const w = new Worker('/echo.js'); w.onmessage = (e) => { if (e.data !== 'script') document.getElementById('out').textContent = e.data; }; return w; })()).postMessage('hello')">Ask worker</button>
    <script>${ASK}</script>`,
  // A cross-site frame that starts its workers when the top document asks, and posts back their answers.
  "/frame": `<!doctype html><title>Frame</title><script>${ASK}
    addEventListener('message', (e) => { if (e.data === 'go') askWorkers().then((a) => parent.postMessage(a, '*')); });</script>`,
  "/framed": () => `<!doctype html><title>Framed</title><iframe src="${site.b}/frame"></iframe>`,
});
let user: UserBrowser;
let env: BpEnv;
const KEY = "agent-workers";
const run = (args: string[]) => env.run(args, { key: KEY });
const evalJs = async (expr: string): Promise<unknown> => {
  const r = await run(["eval", expr]);
  expect(r.json.ok).toBe(true);
  return r.json.value;
};
const ANSWERS = ["blob", "script", "outer+nested"];

/** The dedicated workers the browser has, and whether any client is attached to each (over a CDP connection of the test's own). */
async function workerTargets(): Promise<{ url: string; attached: boolean }[]> {
  const ws = new WebSocket(user.wsEndpoint);
  try {
    await new Promise((r, j) => {
      ws.onopen = r;
      ws.onerror = j;
    });
    const reply = new Promise<{ result: { targetInfos: { type: string; url: string; attached: boolean }[] } }>(
      (r) => (ws.onmessage = (e) => r(JSON.parse(String(e.data)))),
    );
    ws.send(JSON.stringify({ id: 1, method: "Target.getTargets" }));
    return (await reply).result.targetInfos
      .filter((t) => t.type === "worker")
      .map(({ url, attached }) => ({ url, attached }));
  } finally {
    ws.close();
  }
}

beforeAll(async () => {
  user = await startUserBrowser({ url: "about:blank" });
  env = makeBpEnv({ HOME: user.home });
  expect((await env.run(["connect", "--cdp-url", user.wsEndpoint])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/workers`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  await user.stop();
  site.stop();
});

describe("workers started by the page run", () => {
  test("dedicated workers (blob:, script URL, nested) answer", async () => {
    expect(await evalJs("askWorkers()")).toEqual(ANSWERS);
    // Again: each worker is let run, not only the first.
    expect(await evalJs("askWorkers()")).toEqual(ANSWERS);
  });

  test("a worker that lives on keeps no session of bp's", async () => {
    // A snapshot first: it turns on the frame sessions' auto-attach too.
    expect((await run(["snapshot"])).json.ok).toBe(true);
    expect(
      await evalJs(
        "new Promise((r) => { window.kept = new Worker('/echo.js'); window.kept.onmessage = (e) => r(e.data); })",
      ),
    ).toBe("script");
    // The detach follows the worker's start: wait for it, not on a guess of how long it takes.
    await waitFor(
      async () => {
        const kept = (await workerTargets()).filter((t) => t.url.endsWith("/echo.js"));
        return kept.length > 0 && kept.every((t) => !t.attached);
      },
      5_000,
      "every echo worker without a client",
    );
  });

  test("shared and service workers start", async () => {
    const shared =
      "new Promise((r) => { const w = new SharedWorker('/shared.js'); w.port.onmessage = (e) => r(e.data); setTimeout(() => r('timeout'), 3000); })";
    expect(await evalJs(shared)).toBe("shared");
    const sw =
      "navigator.serviceWorker.register('/sw.js').then(() => Promise.race([navigator.serviceWorker.ready.then((g) => g.active ? 'active' : 'not active'), new Promise((r) => setTimeout(() => r('timeout'), 3000))]))";
    expect(await evalJs(sw)).toBe("active");
  });

  test("the workers of a cross-origin frame answer", async () => {
    expect((await run(["open", `${site.a}/framed`])).json.ok).toBe(true);
    const ask = `new Promise((r) => {
      addEventListener('message', (e) => r(e.data));
      setTimeout(() => r('no answer'), 5000);
      document.querySelector('iframe').contentWindow.postMessage('go', '*');
    })`;
    // The frame's script may not have run yet right after open: ask until it listens.
    const got = await waitFor(
      async () => {
        const v = await evalJs(ask);
        return v === "no answer" ? undefined : v;
      },
      15_000,
      "the frame's answer",
    );
    expect(got).toEqual(ANSWERS);
  });

  test("a click whose handler posts to a worker: its answer renders", async () => {
    expect((await run(["open", `${site.a}/workers`])).json.ok).toBe(true);
    const els = (await run(["snapshot"])).json.elements as { r: number; n?: string }[];
    const ref = els.find((e) => e.n === "Ask worker")?.r;
    expect(ref).toBeDefined();
    expect((await run(["click", String(ref)])).json.ok).toBe(true);
    const text = await waitFor(
      async () => {
        const t = await evalJs("document.getElementById('out').textContent");
        return t === "none" ? undefined : t;
      },
      5_000,
      "the worker's answer on the page",
    );
    expect(text).toBe("echo hello");
  });
});
