/**
 * 'bp mouse' and 'bp focus' on a real page: raw pointer events reach the page where the agent
 * put them (a held button rides on moves, as a hand-made drag needs), and focus lands on the ref.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeBpEnv, refNamed } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { resultViolations } from "../support/result-check.ts";
import { findCommand } from "../../src/protocol/table.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

/** The reply against its command's published result schema, strictly (test/support/result-check.ts). */
async function violations(name: string, reply: unknown): Promise<string[]> {
  const def = await findCommand(name);
  if (!def) return [`no command ${name}`];
  return resultViolations(def.result, reply);
}

const PAGE = `<!doctype html><title>Pointer</title><body style="margin:0">
<canvas id=c width=400 height=200 style="display:block"></canvas>
<input type=range id=r aria-label=Volume min=0 max=100 value=0 style="position:absolute;left:20px;top:240px;width:200px;margin:0">
<input aria-label=Name style="position:absolute;left:20px;top:300px">
<div role=button aria-label=Fake style="position:absolute;left:20px;top:340px">Fake</div>
<script>
window.log = [];
const c = document.getElementById("c");
for (const t of ["mousedown", "mousemove", "mouseup", "wheel"]) c.addEventListener(t, (e) => log.push(t + " " + e.offsetX + "," + e.offsetY + " b" + e.buttons + (t === "wheel" ? " dy" + e.deltaY : "") + (t === "mousedown" ? " button" + e.button : "")), { passive: true });
</script></body>`;
const site = startFixtureServer({ "/pointer": PAGE });
const env = makeBpEnv();
const K = "pointer-agent";
const run = (args: string[]) => env.run(args, { key: K });

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/pointer`, "--new"])).json).toMatchObject({ ok: true, title: "Pointer" });
});

afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("bp mouse", () => {
  test("down, move and up at viewport points reach the canvas, the held button riding on the move", async () => {
    expect((await run(["mouse", "down", "10,20"])).json).toEqual({ ok: true, x: 10, y: 20, buttons: ["left"] });
    expect((await run(["mouse", "move", "60,70"])).json).toEqual({ ok: true, x: 60, y: 70, buttons: ["left"] });
    const up = await run(["mouse", "up", "60,70"]);
    expect(up.json).toEqual({ ok: true, x: 60, y: 70 });
    expect(await violations("mouse", up.json)).toEqual([]);
    expect((await run(["mouse", "wheel", "30,30", "--delta", "0,120"])).json).toEqual({ ok: true, x: 30, y: 30 });
    expect((await run(["mouse", "down", "5,5", "--button", "right"])).json).toMatchObject({ buttons: ["right"] });
    await run(["mouse", "up", "5,5", "--button", "right"]);
    const log = (await run(["eval", "log.join('|')"])).json.value as string;
    expect(log.split("|").filter((l) => !l.startsWith("mousemove 5,5"))).toEqual([
      "mousedown 10,20 b1 button0",
      "mousemove 60,70 b1",
      "mouseup 60,70 b0",
      "wheel 30,30 b0 dy120",
      "mousedown 5,5 b2 button2",
      "mouseup 5,5 b0",
    ]);
  });

  test("a slider dragged by hand moves", async () => {
    // The thumb sits at the range's left end (value 0); drag it to the middle of its track.
    await run(["mouse", "down", "24,248"]);
    await run(["mouse", "move", "80,248"]);
    await run(["mouse", "move", "120,248"]);
    await run(["mouse", "up", "120,248"]);
    const value = Number((await run(["eval", "document.getElementById('r').value"])).json.value);
    expect(value).toBeGreaterThan(40);
    expect(value).toBeLessThan(60);
  });

  test("bad points and actions are invalid_argument naming the field; nothing is sent", async () => {
    await run(["eval", "log.length = 0"]);
    expect((await run(["mouse", "jump", "1,2"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "action" },
    });
    expect((await run(["mouse", "move", "12"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "at" },
    });
    expect((await run(["mouse", "move", "1,2", "--delta", "0,5"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "delta" },
    });
    expect((await run(["mouse", "down", "1,2", "--button", "back"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "button" },
    });
    expect((await run(["eval", "log.length"])).json.value).toBe(0);
  });
});

describe("bp focus", () => {
  test("focuses the ref; keys then go to it", async () => {
    const name = await refNamed(run, "Name");
    const focused = await run(["focus", name]);
    expect(focused.json).toEqual({ ok: true, focused: 'input "Name"' });
    expect(await violations("focus", focused.json)).toEqual([]);
    expect((await run(["keyboard", "Ada"])).json.ok).toBe(true);
    expect(
      (await run(["eval", "document.activeElement.getAttribute('aria-label') + ':' + document.activeElement.value"]))
        .json.value,
    ).toBe("Name:Ada");
  });

  test("an element that cannot take focus is action_not_verified; an unknown ref is stale_ref", async () => {
    const fake = await refNamed(run, "Fake");
    expect((await run(["focus", fake])).json).toMatchObject({
      ok: false,
      code: "action_not_verified",
      context: { reason: "not_focusable" },
    });
    expect((await run(["focus", "9999"])).json).toMatchObject({ ok: false, code: "stale_ref" });
  });
});
