/**
 * The live viewer, driven in a real browser: a second headless Chromium (this test's, driven
 * through the project's own CDP client) opens the one-time link, sees the handed-off tab,
 * types and clicks in it through the viewer, and hands it back; the agent then sees what
 * changed. Spent, wrong and revoked links are refused; input is refused without human control.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CdpConnection } from "../../src/cdp/connection.ts";
import { attachToTarget, type CdpSession } from "../../src/cdp/session.ts";
import { connectWebSocket } from "../../src/cdp/transport.ts";
import { makeBpEnv, waitFor, type BpEnv } from "../support/bp.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";
import { listPageTargets, startUserBrowser, type UserBrowser } from "../support/user-browser.ts";
import { LOGIN_PAGE } from "./handoff-pages.ts";

const site = startFixtureServer({ ...PAGES, "/login": LOGIN_PAGE });
const A = "agent-view";
let user: UserBrowser;
let other: UserBrowser;
let env: BpEnv;
let cdp: CdpConnection;
let page: CdpSession;

beforeAll(async () => {
  [user, other] = await Promise.all([startUserBrowser({ url: `${site.a}/` }), startUserBrowser()]);
  env = makeBpEnv({ HOME: user.home });
  expect((await env.run(["connect", "--cdp-url", user.wsEndpoint])).json).toMatchObject({ ok: true });
  cdp = new CdpConnection(await connectWebSocket(other.wsEndpoint));
  const target = (await listPageTargets(other.port))[0];
  if (!target) throw new Error("the viewer browser has no page");
  page = await attachToTarget(cdp, target.id);
  await page.send("Page.enable");
});

afterAll(async () => {
  cdp?.close();
  await env.cleanup();
  await Promise.all([user?.stop(), other?.stop()]);
  site.stop();
});

async function evaluate<T>(expression: string): Promise<T> {
  const r = await page.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
  if (r.exceptionDetails) throw new Error(r.exceptionDetails.text);
  return r.result.value as T;
}

async function open(url: string): Promise<void> {
  const loaded = new Promise<void>((resolve) => {
    const off = page.on("Page.loadEventFired", () => {
      off();
      resolve();
    });
  });
  await page.send("Page.navigate", { url });
  await loaded;
}

/** A real click of the viewer browser at a point of the viewer page. */
async function clickAt(x: number, y: number): Promise<void> {
  await page.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
  await page.send("Input.dispatchMouseEvent", {
    type: "mousePressed",
    x,
    y,
    button: "left",
    buttons: 1,
    clickCount: 1,
  });
  await page.send("Input.dispatchMouseEvent", {
    type: "mouseReleased",
    x,
    y,
    button: "left",
    buttons: 0,
    clickCount: 1,
  });
}

/** Clicks the viewer's image at a fraction of the shown tab. */
async function clickScreen(fx: number, fy: number): Promise<void> {
  const r = await evaluate<{ x: number; y: number; w: number; h: number }>(
    "(() => { const b = document.getElementById('screen').getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height }; })()",
  );
  await clickAt(r.x + fx * r.w, r.y + fy * r.h);
}

/** Moves the pointer over the viewer's image to a fraction of the shown tab, buttons held or not. */
async function moveScreen(fx: number, fy: number, buttons = 0): Promise<void> {
  const r = await evaluate<{ x: number; y: number; w: number; h: number }>(
    "(() => { const b = document.getElementById('screen').getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height }; })()",
  );
  await page.send("Input.dispatchMouseEvent", {
    type: "mouseMoved",
    x: r.x + fx * r.w,
    y: r.y + fy * r.h,
    button: buttons & 1 ? "left" : "none",
    buttons,
  });
}

async function typeKeys(text: string): Promise<void> {
  for (const ch of text) {
    const code = `Key${ch.toUpperCase()}`;
    const vk = ch.toUpperCase().charCodeAt(0);
    await page.send("Input.dispatchKeyEvent", { type: "keyDown", key: ch, code, text: ch, windowsVirtualKeyCode: vk });
    await page.send("Input.dispatchKeyEvent", { type: "keyUp", key: ch, code, windowsVirtualKeyCode: vk });
  }
}

describe("bp view", () => {
  test("a person signs in through the viewer and hands back; the agent sees what changed", async () => {
    expect((await env.run(["open", `${site.a}/login`, "--new"], { key: A })).json).toMatchObject({ ok: true });
    expect((await env.run(["handoff", "--message", "Sign in as ada"], { key: A })).json).toMatchObject({
      ok: true,
      control: "human",
    });
    const view = await env.run(["view"], { key: A });
    expect(view.json).toMatchObject({ ok: true, tab: "t1" });
    const url = String(view.json.url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v\/[A-Za-z0-9_-]{43}$/);
    // A second link, never opened: the handback must revoke it too.
    const unused = String((await env.run(["view"], { key: A })).json.url);

    await open(url);
    await waitFor(
      () => evaluate<boolean>("document.getElementById('status').textContent.startsWith('You have control')"),
      10_000,
      "input enabled",
    );
    expect(await evaluate<string>("document.getElementById('msg').textContent")).toBe("Sign in as ada");
    await waitFor(() => evaluate<boolean>("document.getElementById('screen').naturalWidth > 0"), 10_000, "first frame");
    // Not blank: the frame has the page's colours (white page, green button, dark text).
    // Decoded from a copy: a frame arriving meanwhile replaces the shown image's src, which
    // rejects a decode() pending on that image.
    const colours = await evaluate<number>(`(async () => {
      const img = new Image();
      img.src = document.getElementById('screen').src;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.naturalWidth; c.height = img.naturalHeight;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < d.length; i += 4 * 7) seen.add((d[i] >> 5) << 6 | (d[i + 1] >> 5) << 3 | (d[i + 2] >> 5));
      return seen.size;
    })()`);
    expect(colours).toBeGreaterThanOrEqual(3);
    // The list names the tab by its title once the broker has heard it (a state message every 2 s).
    await waitFor(
      () => evaluate<boolean>("document.getElementById('tabs').textContent.includes('Sign in')"),
      10_000,
      "the tab listed by its title",
    );

    const firstFrame = await evaluate<string>("document.getElementById('screen').src");
    await clickScreen(0.25, 0.15);
    await typeKeys("ada");
    await waitFor(
      async () => {
        const values = await personValue(user);
        return values === "ada";
      },
      10_000,
      "typed value in the handed-off tab",
    );
    // Pointer moves reach the tab: a hover without a click, and a drag with its button held.
    await moveScreen(0.65, 0.15);
    await waitFor(
      async () => (await personEval(user, "!!document.querySelector('#pw:hover')")) === true,
      10_000,
      "hover through the viewer",
    );
    const r0 = await evaluate<{ x: number; y: number; w: number; h: number }>(
      "(() => { const b = document.getElementById('screen').getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height }; })()",
    );
    await page.send("Input.dispatchMouseEvent", {
      type: "mousePressed",
      x: r0.x + 0.65 * r0.w,
      y: r0.y + 0.15 * r0.h,
      button: "left",
      buttons: 1,
      clickCount: 1,
    });
    await moveScreen(0.7, 0.16, 1);
    await waitFor(
      async () => (await personEval(user, "window.lastMoveButtons")) === 1,
      10_000,
      "drag through the viewer",
    );
    await page.send("Input.dispatchMouseEvent", {
      type: "mouseReleased",
      x: r0.x + 0.7 * r0.w,
      y: r0.y + 0.16 * r0.h,
      button: "left",
      buttons: 0,
      clickCount: 1,
    });
    await clickScreen(0.25, 0.45);
    await waitFor(
      async () => (await listPageTargets(user.port)).some((t) => t.title === "Welcome ada"),
      10_000,
      "signed in",
    );
    // Live: the screencast delivered the changed page.
    await waitFor(
      async () => (await evaluate<string>("document.getElementById('screen').src")) !== firstFrame,
      10_000,
      "a new frame",
    );

    // Wheel scrolling reaches the tab too.
    const shot = await evaluate<{ x: number; y: number; w: number; h: number }>(
      "(() => { const b = document.getElementById('screen').getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height }; })()",
    );
    await page.send("Input.dispatchMouseEvent", {
      type: "mouseWheel",
      x: shot.x + shot.w / 2,
      y: shot.y + shot.h / 2,
      deltaX: 0,
      deltaY: 400,
    });
    await waitFor(
      async () => Number(await personEval(user, "window.scrollY")) > 0,
      10_000,
      "scrolled through the viewer",
    );

    const r = await evaluate<{ x: number; y: number; w: number; h: number }>(
      "(() => { const b = document.getElementById('handback').getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height }; })()",
    );
    await clickAt(r.x + r.w / 2, r.y + r.h / 2);
    await waitFor(
      () => evaluate<boolean>("document.getElementById('status').textContent.startsWith('Handed back')"),
      10_000,
      "viewer closed",
    );

    // The handback finishes broker-side (resync, refs) a moment after the viewer closed input.
    const next = await waitFor(
      async () => {
        const r = await env.run(["tabs"], { key: A });
        return r.json.handbacks ? r : undefined;
      },
      10_000,
      "handback notice",
    );
    expect(next?.json.ok).toBe(true);
    const notice = (next?.json.handbacks as Record<string, unknown>[] | undefined)?.[0];
    expect(notice).toMatchObject({
      tab: "t1",
      ended: "handback",
      url: `${site.a}/login?signed-in`,
      title: "Welcome ada",
      authentication_surface: "left",
    });
    expect(notice?.newTabs).toMatchObject([{ origin: "managed_popup" }]);
    expect((await env.run(["eval", "document.querySelector('h1').textContent"], { key: A })).json).toMatchObject({
      ok: true,
      value: "Welcome ada",
    });

    // Spent, revoked and made-up links are refused, and say nothing else.
    for (const link of [url, unused, url.replace(/.$/, (c) => (c === "A" ? "B" : "A"))]) {
      const res = await fetch(link);
      expect(res.status).toBe(403);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(await res.text()).not.toContain("data-session");
    }
  });

  test("input is refused while the tab is not under human control; the socket needs its page's origin", async () => {
    // Another agent cannot watch a tab this agent controls.
    const seen = (await env.run(["tabs"], { key: "agent-other" })).json.tabs as { id: string; title: string }[];
    const mine = seen.find((t) => t.title === "Welcome ada");
    expect((await env.run(["view", "--tab", mine?.id ?? ""], { key: "agent-other" })).json).toMatchObject({
      ok: false,
      code: "target_busy",
    });
    const view = await env.run(["view"], { key: A });
    const url = new URL(String(view.json.url));
    const html = await (await fetch(url)).text();
    const session = /data-session="([A-Za-z0-9_-]{43})"/.exec(html)?.[1];
    expect(session).toBeDefined();
    const wsUrl = `ws://${url.host}/ws/${session}`;
    // Without the viewer's own origin the upgrade is refused.
    const foreign = new WebSocket(wsUrl, { headers: { origin: "http://evil.example" } });
    const foreignOutcome = await new Promise<string>((resolve) => {
      foreign.onopen = () => resolve("open");
      foreign.onerror = () => resolve("refused");
    });
    expect(foreignOutcome).toBe("refused");
    const ws = new WebSocket(wsUrl, { headers: { origin: url.origin } });
    const messages: Record<string, unknown>[] = [];
    ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)) as Record<string, unknown>);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error("viewer socket refused"));
    });
    await waitFor(() => messages.some((m) => m.type === "state" && m.control === "automation"), 10_000, "state");
    ws.send(JSON.stringify({ type: "mouse", action: "down", button: 0, x: 0.25, y: 0.45, mods: 0, clicks: 1 }));
    ws.send(JSON.stringify({ type: "handback" }));
    await waitFor(() => messages.filter((m) => m.type === "refused").length === 2, 10_000, "refusals");
    ws.close();
    // The agent still has the tab, unchanged, and no handback happened.
    const after = await env.run(["eval", "document.title"], { key: A });
    expect(after.json).toMatchObject({ ok: true, value: "Welcome ada" });
    expect(after.json.handbacks).toBeUndefined();
  });
});

/** Reads a value in the handed-off tab through the person's browser (measuring, not driving). */
async function personEval(browser: UserBrowser, expression: string): Promise<unknown> {
  const target = (await listPageTargets(browser.port)).find((t) => t.url.includes("/login"));
  if (!target) return undefined;
  const conn = new CdpConnection(await connectWebSocket(browser.wsEndpoint));
  try {
    const s = await attachToTarget(conn, target.id);
    const r = await s.send("Runtime.evaluate", { expression, returnByValue: true });
    return r.result.value;
  } finally {
    conn.close();
  }
}

/** The value of the sign-in field. */
async function personValue(browser: UserBrowser): Promise<string | undefined> {
  const v = await personEval(browser, "document.getElementById('user')?.value");
  return typeof v === "string" ? v : undefined;
}
