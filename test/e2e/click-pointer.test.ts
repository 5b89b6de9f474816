/**
 * The pointer a click leaves behind: a second click on the same spot sends no move first (a
 * person clicking again without moving the mouse sends none), and every other click moves the
 * pointer there as before. Real Chromium; the page logs the trusted mouse events it receives.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const PAGE = `<!doctype html><title>Pointer</title>
  <p><button id=a>Alpha</button> <button id=b style="margin-left:60px">Beta</button></p>
  <script>
    window.seen = [];
    for (const t of ["mousemove", "mouseover", "mousedown", "mouseup", "click"])
      addEventListener(t, (e) => { if (e.isTrusted) seen.push(t + ":" + (e.target.id || e.target.localName)); }, true);
    // Alpha replaces itself with a new button in the same place: what lies under the pointer changes.
    document.getElementById("a").addEventListener("click", (e) => {
      if (!location.hash.includes("swap")) return;
      const b = document.createElement("button");
      b.id = "a2"; b.textContent = "Alpha";
      e.target.replaceWith(b);
    });
  </script>`;

const site = startFixtureServer({ "/pointer": PAGE });
const env = makeBpEnv();

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await env.run(["open", `${site.a}/pointer`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

type El = { r: number; n?: string };

async function refs(): Promise<Record<string, string>> {
  const s = await env.run(["snapshot"]);
  const els = s.json.elements as El[];
  return Object.fromEntries(els.map((e) => [e.n ?? "", String(e.r)]));
}

/** Clicks a ref and answers the trusted mouse events the page received for it. */
async function clicked(ref: string): Promise<string[]> {
  expect((await env.run(["eval", "seen.length = 0"])).json.ok).toBe(true);
  const r = await env.run(["click", ref]);
  expect(r.json.ok).toBe(true);
  return (await env.run(["eval", "seen.slice()"])).json.value as string[];
}

describe("click pointer", () => {
  test("a click on the spot the last one left the pointer sends no move; elsewhere, or in a new document, it moves first", async () => {
    let r = await refs();
    const first = await clicked(r.Alpha ?? "");
    expect(first).toContain("mousemove:a");
    expect(first.slice(-3)).toEqual(["mousedown:a", "mouseup:a", "click:a"]);
    // Again on the same spot: the press, release and click, and no move before them.
    expect(await clicked(r.Alpha ?? "")).toEqual(["mousedown:a", "mouseup:a", "click:a"]);
    // Another element: the pointer moves there first.
    const beta = await clicked(r.Beta ?? "");
    expect(beta).toContain("mousemove:b");
    expect(beta.slice(-3)).toEqual(["mousedown:b", "mouseup:b", "click:b"]);
    expect(await clicked(r.Beta ?? "")).toEqual(["mousedown:b", "mouseup:b", "click:b"]);
    // A new document under the same pointer: it has seen no move, so the click makes one.
    expect((await env.run(["open", `${site.a}/pointer#swap`])).json.ok).toBe(true);
    expect((await env.run(["reload"])).json.ok).toBe(true);
    r = await refs();
    const fresh = await clicked(r.Beta ?? "");
    expect(fresh).toContain("mousemove:b");
  });

  test("a new element under a pointer that stayed gets the click, and the browser's own boundary events", async () => {
    const r = await refs();
    await clicked(r.Alpha ?? "");
    // Alpha replaced itself with a new button in the same place.
    const next = await refs();
    expect(next.Alpha).not.toBe(r.Alpha);
    const r2 = await env.run(["click", next.Alpha ?? ""]);
    expect(r2.json.ok).toBe(true);
    const log = (await env.run(["eval", "seen.slice()"])).json.value as string[];
    const after = log.slice(log.indexOf("click:a") + 1);
    expect(after).not.toContain("mousemove:a2");
    expect(after.slice(-3)).toEqual(["mousedown:a2", "mouseup:a2", "click:a2"]);
    // The page saw the pointer enter the new element (the browser's hover update after the change, or the press's).
    expect(after).toContain("mouseover:a2");
  });

  test("after a handoff the next click moves first, even on the spot the last click left the pointer", async () => {
    let r = await refs();
    await clicked(r.Beta ?? "");
    // The skip is in force here: without the handoff this click would send no move.
    expect(await clicked(r.Beta ?? "")).toEqual(["mousedown:b", "mouseup:b", "click:b"]);
    expect((await env.run(["handoff", "--lease-seconds", "60"])).json).toMatchObject({ ok: true });
    expect((await env.run(["handback"])).json.ok).toBe(true);
    r = await refs();
    const after = await clicked(r.Beta ?? "");
    expect(after).toContain("mousemove:b");
    expect(after.slice(-3)).toEqual(["mousedown:b", "mouseup:b", "click:b"]);
  });
});
