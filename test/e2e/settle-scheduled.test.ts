/**
 * What a click's handlers schedule is in its reply: a short timer holds the settle to the floor
 * (20 ms from the input event and a rendered frame), as does a click into a same-origin frame
 * whose input the top window never saw (its timers count on the frame's own counters); an
 * animation frame is in the frame the settle waits for, and a message chain (a scheduler built
 * on MessageChannel, as React's transitions run) has run when the task of ours that follows that
 * frame, with no other task pending, runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

// Each button adds "<name> done" to the page: at once, or through what it schedules. All but
// "Now" and "Soon" also change the page inside the dispatch, so the reply shows a change either way.
const site = startFixtureServer({
  "/later": `<!doctype html><title>Later</title><div id=out></div><p id=mark></p>
    <button id=now>Now</button> <button id=soon>Soon</button> <button id=frame>Frame</button>
    <button id=chain>Chain</button> <button id=heavy>Heavy</button>
    <iframe id=inner src="/later-inner" style="width:300px;height:80px"></iframe>
    <script>
      const done = (name) => document.getElementById("out").insertAdjacentHTML("beforeend", "<button>" + name + " done</button>");
      const mark = () => (document.getElementById("mark").textContent += ".");
      const on = (id, fn) => document.getElementById(id).addEventListener("click", fn);
      on("now", () => done("Now"));
      on("soon", () => setTimeout(() => done("Soon"), 15));
      on("frame", () => { mark(); requestAnimationFrame(() => done("Frame")); });
      // A message chain, as a scheduler built on MessageChannel runs its work: three hops.
      const ch = new MessageChannel();
      let hops = 0;
      ch.port1.onmessage = () => (++hops < 3 ? ch.port2.postMessage(0) : done("Chain"));
      on("chain", () => { mark(); hops = 0; ch.port2.postMessage(0); });
      // A 16 ms timer on a page whose next frame is long (a heavy animation frame, 30 ms from
      // the click): the timer falls due during the frame and is queued only after it.
      on("heavy", () => {
        mark();
        const t0 = performance.now();
        setTimeout(() => done("Heavy"), 16);
        requestAnimationFrame(() => { while (performance.now() < t0 + 30); });
      });
    </script>`,
  // A same-origin frame whose button changes the frame at once and again 15 ms later.
  "/later-inner": `<!doctype html><title>Inner</title><p id=m></p><button id=b>Inner</button><div id=o></div>
    <script>
      document.getElementById("b").addEventListener("click", () => {
        document.getElementById("m").textContent += ".";
        setTimeout(() => document.getElementById("o").insertAdjacentHTML("beforeend", "<button>Inner done</button>"), 15);
      });
    </script>`,
  // A preview that follows the field in the page's next animation frame ("update once per
  // frame"); focusing the field changes the page at once (its wrapper's class).
  "/preview": `<!doctype html><title>Preview</title><div id=w><input id=f aria-label="Field"></div><div id=o></div>
    <script>
      f.addEventListener("focus", () => (w.className = "focused"));
      f.addEventListener("input", () => requestAnimationFrame(() => { o.innerHTML = "<button>Echo " + f.value + "</button>"; }));
    </script>`,
  // A page that renders the field into the DOM from an animation loop it runs all the time: the
  // frame it runs next was requested before the text went in (no input handler of its own).
  "/mirror": `<!doctype html><title>Mirror</title><input id=f aria-label="Field"><div id=o></div>
    <script>
      (function loop() {
        if (o.dataset.v !== f.value) { o.dataset.v = f.value; o.innerHTML = f.value ? "<button>Mirror " + f.value + "</button>" : ""; }
        requestAnimationFrame(loop);
      })();
    </script>`,
  // The field's text in a span; a resize observer on the span renders the reaction (in the
  // frame after the change: no id of the page's is handed out for it).
  "/ro": `<!doctype html><title>Resize</title><input id=f aria-label="Field"><span id=s style="display:inline-block"></span><div id=o></div>
    <script>
      f.addEventListener("input", () => (s.textContent = f.value));
      new ResizeObserver(() => { o.innerHTML = f.value ? "<button>R " + f.value + "</button>" : ""; }).observe(s);
    </script>`,
  // A document-level input listener that renders 5 ms later and changes nothing at once.
  "/deleg5": `<!doctype html><title>Delegated</title><input id=f aria-label="Field"><div id=o></div>
    <script>
      document.addEventListener("input", (e) => { const v = e.target.value; setTimeout(() => (o.innerHTML = "<button>R " + v + "</button>"), 5); });
    </script>`,
  // Focusing the field moves focus on to another one 5 ms later.
  "/refocus": `<!doctype html><title>Refocus</title><input id=f aria-label="Field"> <input id=g aria-label="Other">
    <script>f.addEventListener("focus", () => setTimeout(() => g.focus(), 5));</script>`,
});
const env = makeBpEnv();
const KEY = "agent-settle-scheduled";
const run = (args: string[]) => env.run(args, { key: KEY });

type El = { r: number; n?: string };

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/later`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("the reply shows what the action scheduled", () => {
  test("a change made at once, by a timer (also one due during a long frame), in a frame, at the end of a message chain or by a frame's timer is in the click's reply", async () => {
    for (const name of ["Now", "Soon", "Frame", "Chain", "Heavy", "Inner"]) {
      for (let round = 0; round < 3; round++) {
        const els = (await run(["snapshot"])).json.elements as El[];
        const ref = els.find((e) => e.n === name)?.r;
        expect(ref).toBeDefined();
        const r = await run(["click", String(ref)]);
        expect(r.json.ok).toBe(true);
        const added = ((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n);
        expect({ name, round, added }).toEqual({ name, round, added: expect.arrayContaining([`${name} done`]) });
      }
    }
  });

  test("the page's own functions stay native: nothing of ours shows in its world", async () => {
    const r = await run([
      "eval",
      "[setTimeout, setInterval, requestAnimationFrame, requestIdleCallback].map((f) => Function.prototype.toString.call(f).includes('[native code]'))",
    ]);
    expect(r.json.value).toEqual([true, true, true, true]);
  });

  // The typing settle needs a frame after the last input, not only after the last change: the
  // last key changes only the field's value, and an earlier change (the first key's preview,
  // the focus) had its frame already, so the settle's first look must not end it.
  test("typing: a preview the page renders in the frame after the last key (or the inserted text) is in the reply", async () => {
    expect((await run(["open", `${site.a}/preview`])).json.ok).toBe(true);
    const echo = (r: Awaited<ReturnType<typeof run>>) =>
      ((r.json.elements as El[] | undefined) ?? []).map((e) => e.n ?? "").filter((n) => n.startsWith("Echo"));
    const field = async () => ((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === "Field")?.r;
    for (let round = 0; round < 8; round++) {
      const ref = await field();
      expect(ref).toBeDefined();
      expect((await run(["click", String(ref)])).json.ok).toBe(true);
      const keys = await run(["keyboard", "ab", "--clear", "--delay", "60", "--full"]);
      expect(keys.json.ok).toBe(true);
      expect({ round, keys: echo(keys) }).toEqual({ round, keys: ["Echo ab"] });
      const typed = await run(["type", String(await field()), `c${round}`, "--clear", "--full"]);
      expect(typed.json.ok).toBe(true);
      expect({ round, typed: echo(typed) }).toEqual({ round, typed: [`Echo c${round}`] });
    }
  });

  // Typing waits for a frame only while a callback not ours may be pending for it: here the
  // page's loop asked for its next frame before the text went in.
  test("typing: what a page's own animation loop renders from the field in its next frame is in the reply", async () => {
    expect((await run(["open", `${site.a}/mirror`])).json.ok).toBe(true);
    const field = ((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === "Field")?.r;
    expect(field).toBeDefined();
    for (let round = 0; round < 6; round++) {
      const typed = await run(["type", String(field), `m${round}`, "--clear", "--full"]);
      expect(typed.json.ok).toBe(true);
      const mirror = ((typed.json.elements as El[] | undefined) ?? [])
        .map((e) => e.n ?? "")
        .filter((n) => n.startsWith("Mirror"));
      expect({ round, mirror }).toEqual({ round, mirror: [`Mirror m${round}`] });
    }
  });

  // The page's reactions that no counter shows ahead of time keep the frame rule (a change at
  // once is followed by a frame, where a resize observer runs), and a timer the page set holds
  // the settle to the timer floor (a render 5 ms after the input is in, not left to a frame's luck).
  test.each([
    ["a resize observer's render", "/ro"],
    ["a 5 ms timer's render", "/deleg5"],
  ])("typing: %s is in every reply, into a focused field and after a focusing click", async (_name, path) => {
    expect((await run(["open", `${site.a}${path}`])).json.ok).toBe(true);
    const field = ((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === "Field")?.r;
    expect(field).toBeDefined();
    for (let round = 0; round < 8; round++) {
      // Every other round from an unfocused field: the click's focus, then the text.
      if (round % 2 === 1) expect((await run(["eval", "document.activeElement.blur(), 1"])).json.ok).toBe(true);
      // Longer every round: the span's size changes, so its resize observer runs.
      const text = `v${round}${"x".repeat(round)}`;
      const typed = await run(["type", String(field), text, "--clear", "--full"]);
      expect(typed.json.ok).toBe(true);
      const seen = ((typed.json.elements as El[] | undefined) ?? [])
        .map((e) => e.n ?? "")
        .filter((n) => n.startsWith("R "));
      expect({ path, round, seen }).toEqual({ path, round, seen: [`R ${text}`] });
    }
  });

  // A focus handler that moves focus on a short timer has moved it before the text is sent:
  // the change before the first keystroke stops type, and nothing goes into the other field.
  test("typing into a field whose focus handler moves focus on 5 ms later: action_not_verified, nothing typed", async () => {
    expect((await run(["open", `${site.a}/refocus`])).json.ok).toBe(true);
    for (let round = 0; round < 5; round++) {
      expect((await run(["eval", "g.value = '', f.value = '', document.activeElement.blur(), 1"])).json.ok).toBe(true);
      const field = ((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === "Field")?.r;
      expect(field).toBeDefined();
      const typed = await run(["type", String(field), "abc"]);
      const code = typed.json.code;
      const values = (await run(["eval", "[f.value, g.value]"])).json.value;
      expect({ round, ok: typed.json.ok, code, values }).toEqual({
        round,
        ok: false,
        code: "action_not_verified",
        values: ["", ""],
      });
    }
  });

  // The same handler with the other field focused before the click: focus goes back to the
  // element that had it, which still tells the page moved it (the target had focus first).
  test("typing into a field whose focus handler moves focus back to the field focused before: focus_changed, nothing typed", async () => {
    expect((await run(["open", `${site.a}/refocus`])).json.ok).toBe(true);
    for (let round = 0; round < 5; round++) {
      expect((await run(["eval", "f.value = '', g.value = '', g.focus(), 1"])).json.ok).toBe(true);
      const field = ((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === "Field")?.r;
      expect(field).toBeDefined();
      const typed = await run(["type", String(field), "abc"]);
      const reason = (typed.json.context as { reason?: string } | undefined)?.reason;
      const values = (await run(["eval", "[f.value, g.value]"])).json.value;
      expect({ round, ok: typed.json.ok, code: typed.json.code, reason, values }).toEqual({
        round,
        ok: false,
        code: "action_not_verified",
        reason: "focus_changed",
        values: ["", ""],
      });
    }
  });
});
