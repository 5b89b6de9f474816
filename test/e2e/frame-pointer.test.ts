/**
 * The pointer into a frame another renderer draws: the browser sends it there only where it can hit
 * the frame, which the frame's own probe cannot see. A cover of the page around the frame that goes
 * at the first pointer move stands for a frame the browser cannot hit yet (just loaded, not drawn):
 * both send the press to the page around the frame when it goes out with the move.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, type BpResult } from "../support/bp.ts";
import { startFixtureServer, type Fixture } from "../support/fixture-server.ts";

requireChromium();

const frame = (cover: string) => () =>
  `<!doctype html><title>Around</title><div style="position:relative;width:320px;height:160px">` +
  `<iframe src="${site.b}/inner" title="Inner" style="width:320px;height:160px;border:0"></iframe>` +
  `<div id=cover style="position:absolute;inset:0"></div></div>` +
  `<script>cover.addEventListener("click", () => { document.body.dataset.hit = "cover"; });${cover}</script>`;

const site: Fixture = startFixtureServer({
  "/inner":
    `<!doctype html><title>Inner</title><button onclick="this.textContent = 'Changed inside'">Change me</button>` +
    // The tip shows after the button: shown before it, it pushed the button from under the pointer, and whether
    // the button still read as hovered depended on when the browser recomputed its hover state.
    `<input aria-label="Inner field">` +
    `<button onmouseover="tip.hidden = false">Hover me</button><p id=tip hidden>Tip</p>`,
  // Gone at the pointer's first move over it, as a frame becomes hittable once it has drawn.
  "/reveal": frame(`cover.addEventListener("pointermove", () => cover.remove(), { once: true });`),
  "/covered": frame(""),
  // No doctype: a bare :hover never matches a non-link there.
  "/quirks-inner": `<title>Quirks</title><button onclick="this.textContent = 'Pressed'">Quirks button</button>`,
  "/quirks": () =>
    `<!doctype html><title>Quirks around</title><iframe src="${site.b}/quirks-inner" title="Quirks"></iframe>`,
  "/alert-inner": `<!doctype html><title>Alarm</title><button onmouseover="alert('over')" onclick="this.textContent = 'Clicked'">Alarm</button>`,
  "/alert": () =>
    `<!doctype html><title>Alarm around</title><iframe src="${site.b}/alert-inner" title="Alarm frame"></iframe>`,
});
const env = makeBpEnv();

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

type El = { r: number; n?: string; t?: string };
async function open(path: string): Promise<El[]> {
  expect((await env.run(["open", `${site.a}${path}`])).json.ok).toBe(true);
  return (await env.run(["snapshot"])).json.elements as El[];
}
const ref = (els: El[], name: string): string => String(els.find((e) => e.n === name)?.r ?? "missing");
const evidence = (r: BpResult) => r.json.evidence as { status?: string; effects?: string[]; hovered?: boolean };
const topHit = async (): Promise<unknown> => (await env.run(["eval", "document.body.dataset.hit ?? ''"])).json.value;

describe("the pointer into an out-of-process frame", () => {
  test("a click waits until the frame takes the pointer, then presses there", async () => {
    const els = await open("/reveal");
    const r = await env.run(["click", ref(els, "Change me")]);
    expect(evidence(r)).toMatchObject({ status: "verified" });
    expect(evidence(r).effects).toContain("dom_changed");
    expect(await topHit()).toBe("");
    const after = (await env.run(["snapshot"])).json.elements as El[];
    expect(after.some((e) => e.n === "Changed inside")).toBe(true);
  });

  test("hover waits the same way and reports the hover's effect", async () => {
    const els = await open("/reveal");
    const r = await env.run(["hover", ref(els, "Hover me")]);
    expect(evidence(r)).toMatchObject({ status: "verified", hovered: true });
    expect(evidence(r).effects).toContain("dom_changed");
  });

  test("a frame without a doctype (quirks mode) takes the click", async () => {
    const els = await open("/quirks");
    const r = await env.run(["click", ref(els, "Quirks button")]);
    expect(evidence(r)).toMatchObject({ status: "verified" });
    const after = (await env.run(["snapshot"])).json.elements as El[];
    expect(after.some((e) => e.n === "Pressed")).toBe(true);
  });

  test("a dialog the move's handler opens ends the wait: reported, and no press follows it", async () => {
    const els = await open("/alert");
    const r = await env.run(["click", ref(els, "Alarm")]);
    expect(r.json.evidence).toMatchObject({ effects: ["dialog_opened"], dialog: { type: "alert", message: "over" } });
    const id = (r.json.evidence as { dialog: { id: string } }).dialog.id;
    expect((await env.run(["dialog", id, "--dismiss"])).json.ok).toBe(true);
    const after = (await env.run(["snapshot"])).json.elements as El[];
    expect(after.some((e) => e.n === "Alarm")).toBe(true);
    expect(after.some((e) => e.n === "Clicked")).toBe(false);
  });

  test("a cover of the page around the frame: refused and named, no press sent to either page", async () => {
    const els = await open("/covered");
    const r = await env.run(["click", ref(els, "Change me")]);
    expect(r.json).toMatchObject({
      ok: false,
      code: "action_not_verified",
      context: { reason: "obscured", dispatched: false, obstruction: { tagName: "div", id: "cover" } },
    });
    expect(await topHit()).toBe("");
    const after = (await env.run(["snapshot"])).json.elements as El[];
    expect(after.some((e) => e.n === "Change me")).toBe(true);
  });

  test("typing into a covered frame's field focuses it by script instead, with no press", async () => {
    const els = await open("/covered");
    const r = await env.run(["type", ref(els, "Inner field"), "hello"]);
    expect(evidence(r)).toMatchObject({ status: "verified" });
    expect(await topHit()).toBe("");
  });
});
