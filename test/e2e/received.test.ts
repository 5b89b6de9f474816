/**
 * An action is `verified` only when the page received its input on the element: a click's
 * `click` event on it (or inside it, or on its label), a hover's over events. A DOM change
 * alone is no proof: an icon whose :hover style swaps its image, a button whose pointerdown
 * handler replaces it, both change the DOM while the page's click handler never runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, refNamed } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const svg = (fill: string) =>
  `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="${fill}"/></svg>`)}`;

const site = startFixtureServer({
  "/icon": `<!doctype html><title>Icon</title>
    <style>.ico img{width:40px;height:40px;display:block}.ico .on{display:none}.ico:hover .off{display:none}.ico:hover .on{display:block}</style>
    <span class=ico><img class=off alt="Settings" src="${svg("gray")}"><img class=on alt="Settings hover" src="${svg("blue")}"></span>
    <p id=out role=status></p>
    <script>document.querySelector(".off").addEventListener("click", () => { out.textContent = "opened"; });</script>`,
  "/replace": `<!doctype html><title>Replace</title>
    <div id=box><button id=b>Buy</button></div><p id=out role=status></p>
    <script>
      window.ran = 0;
      function arm(btn) {
        btn.addEventListener("pointerdown", () => { const n = document.createElement("button"); n.textContent = "Buy"; btn.replaceWith(n); });
        btn.addEventListener("click", () => { window.ran++; out.textContent = "bought"; });
      }
      arm(b);
    </script>`,
  "/plain": `<!doctype html><title>Plain</title>
    <button id=save onclick="out.textContent = 'Saved ' + (++window.n || (window.n = 1))">Save</button>
    <label><input type=checkbox> Remember me</label>
    <button id=dead>Nothing</button>
    <a href="#" onclick="out.textContent = 'went'; return false"><span>Inner link</span></a>
    <span tabindex=0 onmouseover="out.textContent = 'help shown'">Help</span>
    <label>Size <select><option>S</option><option>M</option></select></label>
    <p id=out role=status></p>`,
  "/walls": `<!doctype html><title>Walls</title>
    <button id=pay onclick="out.textContent = 'paid'">Pay now</button> <button id=ship style="margin-left:300px">Ship</button><p id=out></p>
    <div style="position:fixed;left:0;top:0;width:200px;height:80px;background:#eee"><p>Please wait, loading</p></div>
    <div style="position:fixed;left:290px;top:0;width:200px;height:80px;background:#eee"><p>Cookies?</p><button>Accept</button></div>`,
  "/dnd": `<!doctype html><title>Drag</title>
    <div id=src draggable=true role=button aria-label="Card" style="width:80px;height:40px;background:#ccc">Card</div>
    <div id=ok role=button aria-label="Done column" style="width:160px;height:60px;margin-top:20px;background:#efe">Done column</div>
    <div id=no role=button aria-label="Archive" style="width:160px;height:60px;margin-top:20px;background:#fee">Archive</div>
    <p id=out role=status></p>
    <script>
      src.addEventListener("dragstart", (e) => { e.dataTransfer.setData("text/plain", "card"); src.setAttribute("aria-grabbed", "true"); src.textContent = "Card (moving)"; });
      ok.addEventListener("dragover", (e) => e.preventDefault());
      ok.addEventListener("drop", (e) => { e.preventDefault(); out.textContent = "dropped in Done"; });
    </script>`,
});
const env = makeBpEnv();
const KEY = "agent-received";
const run = (args: string[]) => env.run(args, { key: KEY });

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/plain`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("verified only when the page received the click on the element", () => {
  test("a click whose click event reaches the button, a label's checkbox and a link's inner span is verified", async () => {
    const save = await run(["click", await refNamed(run, "Save")]);
    expect(save.json.evidence).toEqual({ status: "verified", effects: ["dom_changed"] });
    const box = await run(["click", await refNamed(run, "Remember me")]);
    expect(box.json.evidence).toEqual({ status: "verified", effects: ["checked_changed"] });
    const link = await run(["click", await refNamed(run, "Inner link")]);
    expect(link.json.evidence).toEqual({ status: "verified", effects: ["dom_changed"] });
  });

  test("a native select, whose release goes to its popup: no mismatch claimed", async () => {
    const r = await run(["click", await refNamed(run, "Size")]);
    expect(r.json.ok).toBe(true);
    expect((r.json.evidence as { status: string }).status).not.toBe("mismatch");
    await run(["press", "Escape"]);
  });

  test("a hover whose over events reach the element is verified", async () => {
    const r = await run(["hover", await refNamed(run, "Help")]);
    expect(r.json.evidence).toMatchObject({ status: "verified", hovered: true });
  });

  test("a click whose only effect is focus answers the same on the first and the second try", async () => {
    const dead = await refNamed(run, "Nothing");
    const first = await run(["click", dead]);
    const second = await run(["click", dead]);
    expect(first.json.evidence).toEqual({ status: "unavailable", reason: "no_observable_effect" });
    expect(second.json.evidence).toEqual(first.json.evidence);
  });

  test("an icon whose :hover style swaps its image: the DOM changed, the click went to the other image, not verified", async () => {
    expect((await run(["open", `${site.a}/icon`])).json.ok).toBe(true);
    const r = await run(["click", await refNamed(run, "Settings")]);
    expect(r.json.ok).toBe(true);
    const ev = r.json.evidence as {
      status: string;
      reason?: string;
      received?: Record<string, { tagName: string; name?: string }>;
    };
    expect(ev.status).toBe("mismatch");
    expect(["click_received_elsewhere", "pressed_and_released_on_different_elements"]).toContain(ev.reason ?? "");
    expect(JSON.stringify(ev.received)).toContain("Settings hover");
    expect((await run(["eval", "out.textContent"])).json.value).toBe("");
  });

  test("a button whose pointerdown handler replaces it: its click handler never ran, not verified", async () => {
    expect((await run(["open", `${site.a}/replace`])).json.ok).toBe(true);
    const r = await run(["click", await refNamed(run, "Buy")]);
    expect(r.json.ok).toBe(true);
    const ev = r.json.evidence as {
      status: string;
      reason?: string;
      effects?: string[];
      received?: Record<string, unknown>;
    };
    expect({ status: ev.status, reason: ev.reason }).toEqual({
      status: "mismatch",
      reason: "pressed_and_released_on_different_elements",
    });
    expect(ev.effects).toContain("dom_changed");
    expect(ev.received?.down).toMatchObject({ tagName: "button", id: "b" });
    expect((await run(["eval", "window.ran"])).json.value).toBe(0);
  });
});

describe("a drag is verified by its drop on the target", () => {
  test("a drop zone that takes the drop: verified; one that refuses it: a mismatch although the page changed", async () => {
    expect((await run(["open", `${site.a}/dnd`])).json.ok).toBe(true);
    const done = await run(["drag", await refNamed(run, "Card"), await refNamed(run, "Done column")]);
    expect(done.json.evidence).toMatchObject({ status: "verified", kind: "html5" });
    expect((await run(["eval", "out.textContent"])).json.value).toBe("dropped in Done");
    expect((await run(["open", `${site.a}/dnd`])).json.ok).toBe(true);
    const refused = await run(["drag", await refNamed(run, "Card"), await refNamed(run, "Archive")]);
    expect(refused.json.evidence).toMatchObject({ status: "mismatch", kind: "html5", reason: "drop_not_received" });
    expect((refused.json.evidence as { effects?: string[] }).effects).toContain("dom_changed");
  });
});

describe("a covered target", () => {
  test("a wall with no control is not retryable and names what can be tried; an overlay with controls is", async () => {
    expect((await run(["open", `${site.a}/walls`])).json.ok).toBe(true);
    const wall = await run(["click", await refNamed(run, "Pay now")]);
    expect(wall.json).toMatchObject({
      ok: false,
      code: "action_not_verified",
      retryable: false,
      context: { reason: "obscured", dispatched: false, obstructionControls: 0 },
    });
    expect(String(wall.json.hint)).toContain("bp press Tab");
    expect(String(wall.json.hint)).toContain("bp handoff");
    const banner = await run(["click", await refNamed(run, "Ship")]);
    expect(banner.json).toMatchObject({
      ok: false,
      code: "action_not_verified",
      retryable: true,
      context: { reason: "obscured" },
    });
    expect(String(banner.json.hint)).toContain("Close or answer");
  });
});

describe("a launch option that cannot apply is refused", () => {
  test("--executable while bp's browser for the profile runs: invalid_argument, the browser stays", async () => {
    const r = await env.run(["launch", "--headless", "--executable", "/nonexistent/chromium"]);
    expect(r.json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "executable", reason: "browser_running" },
    });
    expect((await run(["eval", "1 + 1"])).json.value).toBe(2);
    // The executable the running browser was started from applies as it is: reused, not refused.
    expect((await env.run(["launch", "--headless", "--executable", requireChromium()])).json).toMatchObject({
      ok: true,
      reused: true,
    });
  });
});
