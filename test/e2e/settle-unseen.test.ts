/**
 * A click that changed nothing at once is held to the floor (20 ms from its input event): its
 * change may come through what the page's ledger cannot see, a few ms after the click. Here an
 * `AbortSignal.timeout(8)` and a WebSocket whose server answers 8 ms after the page's message;
 * both handlers render only then, so a settle that ended a frame after the click would reply
 * that the click had no observable effect. And a controlled checkbox (or select) put back at once
 * whose state comes 8 ms later: its toggle (or the setter's option) alone is no change that ends the wait.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

// Answers every message 8 ms after it came in.
const socket = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req, srv) => (srv.upgrade(req) ? undefined : new Response("no", { status: 400 })),
  websocket: { message: (ws, msg) => void setTimeout(() => ws.send(String(msg)), 8) },
});

const site = startFixtureServer({
  "/unseen": `<!doctype html><title>Unseen</title><p id=state></p><div id=out></div>
    <button id=abort>Abort</button> <button id=sock>Sock</button>
    <label><input type=checkbox id=opt> Controlled</label>
    <label>Size <select id=size><option>Small<option>Large</select></label>
    <script>
      const n = {};
      const done = (name) => (out.innerHTML = "<button>" + name + " done " + (n[name] = (n[name] || 0) + 1) + "</button>");
      abort.onclick = () => { AbortSignal.timeout(8).onabort = () => done("Abort"); };
      const ws = new WebSocket("ws://127.0.0.1:${socket.port}/");
      ws.onopen = () => (state.textContent = "socket open");
      ws.onmessage = () => done("Sock");
      sock.onclick = () => ws.send("go");
      // As a controlled checkbox (React): the toggle is put back at once, the state comes 8 ms later.
      let on = false;
      opt.onchange = () => { opt.checked = on; AbortSignal.timeout(8).onabort = () => { on = !on; opt.checked = on; }; };
      // A controlled select the same way: put back at once, its state 8 ms later.
      let chosen = 0;
      size.onchange = () => { const want = size.selectedIndex; size.selectedIndex = chosen; AbortSignal.timeout(8).onabort = () => { chosen = want; size.selectedIndex = chosen; }; };
    </script>`,
});
const env = makeBpEnv();
const KEY = "agent-settle-unseen";
const run = (args: string[]) => env.run(args, { key: KEY });

type El = { r: number; n?: string };

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/unseen`, "--new"])).json.ok).toBe(true);
  const open = await run(["wait", "--text", "socket open", "--timeout", "15000"]);
  expect(open.json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
  socket.stop(true);
});

describe("a click that changed nothing at once", () => {
  test.each(["Abort", "Sock"])(
    "a render 8 ms after the click (an AbortSignal.timeout, a WebSocket reply) is in its reply every time: %s",
    async (name) => {
      for (let round = 1; round <= 10; round++) {
        const els = (await run(["snapshot"])).json.elements as El[];
        const ref = els.find((e) => e.n === name)?.r;
        expect(ref).toBeDefined();
        const r = await run(["click", String(ref)]);
        expect(r.json.ok).toBe(true);
        const added = ((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n);
        expect({ round, added }).toEqual({ round, added: expect.arrayContaining([`${name} done ${round}`]) });
      }
    },
  );

  test("a controlled checkbox whose state comes 8 ms after the click: the reply sees it toggled, every time", async () => {
    for (let round = 1; round <= 10; round++) {
      const els = (await run(["snapshot"])).json.elements as El[];
      const ref = els.find((e) => e.n === "Controlled")?.r;
      expect(ref).toBeDefined();
      const r = await run(["click", String(ref)]);
      expect(r.json.ok).toBe(true);
      const ev = r.json.evidence as { status?: string; effects?: string[] };
      expect({ round, status: ev.status, effects: ev.effects }).toEqual({
        round,
        status: "verified",
        effects: expect.arrayContaining(["checked_changed"]),
      });
    }
  });

  test("a controlled select whose state comes 8 ms after the setter: the reply reads the option chosen, every time", async () => {
    for (let round = 1; round <= 10; round++) {
      const els = (await run(["snapshot"])).json.elements as El[];
      const ref = els.find((e) => e.n === "Size")?.r;
      expect(ref).toBeDefined();
      const option = round % 2 === 1 ? "Large" : "Small";
      const r = await run(["select", String(ref), option]);
      expect(r.json.ok).toBe(true);
      const ev = r.json.evidence as { status?: string; selected?: string[] };
      expect({ round, status: ev.status, selected: ev.selected }).toEqual({
        round,
        status: "verified",
        selected: [option],
      });
    }
  });
});
