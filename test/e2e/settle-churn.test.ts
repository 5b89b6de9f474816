/**
 * A page that keeps rewriting parts of itself (a ticking clock, an endless JS animation) is never
 * DOM-quiet. Nodes that were churning on their own when an action armed do not hold its settle
 * and are not its DOM change: a button that does nothing changes nothing, one that writes a status
 * shows it, and both answer without waiting out the settle's cap. The clock's new reading is no
 * outcome either; a message that changed beside it is.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, refNamed } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const site = startFixtureServer({
  "/live": `<!doctype html><title>Live</title>
    <p>Elapsed <span id=clock>0</span> ms</p>
    <div id=bar style="width:10px;height:4px;background:#38c"></div>
    <button id=dead>Nothing</button>
    <button onclick="out.textContent = 'Paid with 4242'">Pay</button>
    <p id=out role=status></p>
    <p><span id=tick>0</span> s · <span id=msg>Draft</span></p>
    <button onclick="msg.textContent = 'Saved as v2'">Save</button>
    <p id=q>Question 3 of 10</p>
    <button onclick="q.textContent = 'Question 4 of 10'">Next question</button>
    <p id=line></p>
    <button onclick="note = 'Sent'; draw()">Submit</button>
    <p>Items: <span id=items>2</span> · <span id=secs>3</span> s</p>
    <button onclick="items.textContent = String(Number(items.textContent) + 1)">Add</button>
    <script>
      const t0 = Date.now();
      let note = "Draft";
      // One text node holds the clock and a message.
      const draw = () => { line.textContent = ((Date.now() - t0) / 1000).toFixed(1) + " s left · " + note; };
      setInterval(() => {
        clock.textContent = String(Date.now() - t0);
        tick.textContent = ((Date.now() - t0) / 1000).toFixed(1);
        draw();
        secs.textContent = "3";
      }, 100);
      // Only the question's style moves every frame, never its text.
      (function pulse() { q.style.outlineOffset = (Date.now() % 7) + "px"; requestAnimationFrame(pulse); })();
      (function step() { bar.style.width = (10 + (Date.now() / 5) % 200) + "px"; requestAnimationFrame(step); })();
    </script>`,
});
const env = makeBpEnv();
const run = (args: string[]) => env.run(args, { key: "agent-churn" });

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/live`, "--new"])).json.ok).toBe(true);
  // The agent looks, then thinks: the clock and the bar have churned for a while before it acts.
  expect((await run(["snapshot"])).json.ok).toBe(true);
  await Bun.sleep(1_800);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("a page with its own churn", () => {
  test("a button that does nothing: the clock's ticks are not claimed as its DOM change", async () => {
    const r = await run(["click", await refNamed(run, "Nothing")]);
    expect(r.json.ok).toBe(true);
    const ev = r.json.evidence as { effects?: string[] };
    expect(ev.effects ?? []).not.toContain("dom_changed");
    // Nor is the clock's new reading the click's outcome (the agent last looked seconds ago).
    expect(r.stdout).not.toContain("Elapsed");
    expect(r.stdout).not.toMatch(/ s · Draft/);
  });

  test("a button that writes a status: the status is in the reply", async () => {
    await Bun.sleep(1_000);
    const r = await run(["click", await refNamed(run, "Pay")]);
    expect(r.json.ok).toBe(true);
    expect(r.stdout).toContain("Paid with 4242");
    expect(r.stdout).not.toContain("Elapsed");
  });

  test("a message beside a ticking clock, in one line: the changed message is the outcome", async () => {
    await Bun.sleep(500);
    const r = await run(["click", await refNamed(run, "Save")]);
    expect(r.json.ok).toBe(true);
    expect((r.json.diff as { text?: string[] }).text?.some((t) => t.includes("Saved as v2"))).toBe(true);
    expect(r.stdout).not.toContain("Elapsed");
  });

  test("a block whose style churns but whose text does not: its new text is the outcome", async () => {
    await Bun.sleep(300);
    const r = await run(["click", await refNamed(run, "Next question")]);
    expect(r.json.ok).toBe(true);
    expect((r.json.diff as { text?: string[] }).text).toContain("Question 4 of 10");
  });

  test("a clock and a message in one text node: the message's change is the outcome", async () => {
    await Bun.sleep(300);
    const r = await run(["click", await refNamed(run, "Submit")]);
    expect(r.json.ok).toBe(true);
    expect((r.json.diff as { text?: string[] }).text?.some((t) => t.endsWith("s left · Sent"))).toBe(true);
  });

  test("a count beside a churning part that reads the same: the count's change is the outcome", async () => {
    await Bun.sleep(300);
    const r = await run(["click", await refNamed(run, "Add")]);
    expect(r.json.ok).toBe(true);
    expect((r.json.diff as { text?: string[] }).text).toContain("Items: 3 · 3 s");
  });

  test("clicked again and again with no pause: the clock and the bar stay the page's churn, never the clicks' change", async () => {
    const dead = await refNamed(run, "Nothing");
    // In one call: every tick of the clock comes within 300 ms of a click for well over a second.
    const r = await run(["click", dead, "--times", "25"]);
    expect(r.json.ok).toBe(true);
    expect((r.json.evidence as { effects?: string[] }).effects ?? []).not.toContain("dom_changed");
  });
});
