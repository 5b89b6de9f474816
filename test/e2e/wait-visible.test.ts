import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const site = startFixtureServer({
  "/late": `<!doctype html><title>Late</title>
    <div id=menu style="display:none"><a href="#x" class=item>Hidden item</a></div>
    <p class=item style="visibility:hidden">Invisible item</p>
    <p id=fade style="opacity:0">Faded</p>`,
  "/api": (url) =>
    new Promise<Response>((r) =>
      setTimeout(() => r(new Response("ok")), Number(url.searchParams.get("ms") ?? 100)),
    ) as unknown as Response,
});
const env = makeBpEnv();
const KEY = "agent-wait";
const run = (args: string[]) => env.run(args, { key: KEY });

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/late`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("bp wait waits for what an agent can act on", () => {
  test("--selector waits until a match is visible; --attached takes any match", async () => {
    const attached = await run(["wait", "--selector", ".item", "--attached"]);
    expect(attached.json).toMatchObject({ ok: true, matched: { visible: false } });
    const hidden = await run(["wait", "--selector", ".item", "--timeout", "800"]);
    expect(hidden.json).toMatchObject({ ok: false, code: "wait_timeout" });
    const faded = await run(["wait", "--selector", "#fade", "--timeout", "800"]);
    expect(faded.json).toMatchObject({ ok: false, code: "wait_timeout" });
    await run(["eval", "setTimeout(() => { document.getElementById('menu').style.display = 'block'; }, 300); 1"]);
    const shown = await run(["wait", "--selector", ".item"]);
    expect(shown.json).toMatchObject({ ok: true, matched: { tagName: "a" } });
    expect(shown.json.matched).not.toHaveProperty("visible");
    expect((await run(["eval", "getComputedStyle(document.getElementById('menu')).display"])).json.value).toBe("block");
  });

  test("--network-idle counts a request already in flight when the wait starts", async () => {
    await run(["eval", "window.done = false; fetch('/api?ms=1500').then(() => { window.done = true; }); 1"]);
    // Make sure the request is under way before the wait subscribes.
    await run(["eval", "new Promise((r) => setTimeout(r, 200))"]);
    const idle = await run(["wait", "--network-idle"]);
    expect(idle.json).toEqual({ ok: true, elapsedMs: expect.any(Number) });
    expect((await run(["eval", "window.done"])).json.value).toBe(true);
  });

  test("--network-idle holds once a cross-site iframe added during the wait has loaded (its document ends on the frame's own session)", async () => {
    await run([
      "eval",
      `window.framed = false; setTimeout(() => { const f = document.createElement('iframe'); f.onload = () => { window.framed = true; }; f.src = '${site.b}/api?ms=600'; document.body.append(f); }, 250); 1`,
    ]);
    const idle = await run(["wait", "--network-idle", "--timeout", "8000"]);
    expect(idle.json).toEqual({ ok: true, elapsedMs: expect.any(Number) });
    expect((await run(["eval", "window.framed"])).json.value).toBe(true);
  });
});
