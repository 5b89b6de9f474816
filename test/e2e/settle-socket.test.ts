/**
 * An action that sends a message over a WebSocket waits for the socket's answer, like a
 * request's response: a chat that shows a message only once its server echoes it (here 150 ms
 * later, well past the 20 ms floor) shows it in the click's reply. A message nobody answers
 * costs a bounded wait (WS_REPLY_MAX_MS), not the network's 3 s; what a page sends while text
 * is typed (a typing indicator) is not waited for at all.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WS_REPLY_MAX_MS } from "../../src/broker/act/requests.ts";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

// "/echo" answers every message 150 ms after it came in; "/sink" never answers.
const socket = Bun.serve<{ path: string }>({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req, srv) => (srv.upgrade(req, { data: { path: new URL(req.url).pathname } }) ? undefined : new Response("no", { status: 400 })),
  websocket: { message: (ws, msg) => void (ws.data.path === "/echo" && setTimeout(() => ws.send(String(msg)), 150)) },
});

const site = startFixtureServer({
  "/chat": `<!doctype html><title>Chat</title><p id=state></p><ul id=log></ul>
    <input id=msg aria-label="Message"> <button id=send>Send</button> <button id=ping>Ping sink</button>
    <script>
      const echo = new WebSocket("ws://127.0.0.1:${socket.port}/echo");
      const sink = new WebSocket("ws://127.0.0.1:${socket.port}/sink");
      let open = 0;
      echo.onopen = sink.onopen = () => { if (++open === 2) state.textContent = "sockets open"; };
      // Shown only once the server echoes it, as a button to act on.
      echo.onmessage = (e) => { const li = document.createElement("li"); li.innerHTML = "<button></button>"; li.firstChild.textContent = "Sent: " + e.data; log.append(li); };
      const submit = () => { echo.send(msg.value || "hello"); msg.value = ""; };
      send.onclick = submit;
      msg.onkeydown = (e) => { if (e.key === "Enter") submit(); };
      // A typing indicator nobody answers.
      msg.oninput = () => sink.send("typing");
      ping.onclick = () => sink.send("ping");
    </script>`,
});
const env = makeBpEnv();
const KEY = "agent-settle-socket";
const run = (args: string[]) => env.run(args, { key: KEY });

type El = { r: number; n?: string };
const refOf = async (name: string) => {
  const ref = ((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === name)?.r;
  expect(ref).toBeDefined();
  return String(ref);
};
const added = (json: Record<string, unknown>) => ((json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n);

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/chat`, "--new"])).json.ok).toBe(true);
  expect((await run(["wait", "--text", "sockets open", "--timeout", "15000"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
  socket.stop(true);
});

describe("an action's WebSocket message", () => {
  test("a click whose message the server echoes 150 ms later shows the echo in its reply", async () => {
    const send = await refOf("Send");
    for (let round = 1; round <= 3; round++) {
      const r = await run(["click", send]);
      expect(r.json.ok).toBe(true);
      expect({ round, added: added(r.json) }).toEqual({ round, added: ["Sent: hello"] });
    }
  });

  test("typed text with --submit: the typing indicators are not waited for, the message sent on Enter is", async () => {
    const started = performance.now();
    const r = await run(["type", await refOf("Message"), "hi there", "--submit"]);
    expect(r.json.ok).toBe(true);
    expect(added(r.json)).toEqual(["Sent: hi there"]);
    // The sink never answers the indicator: waiting for it would add WS_REPLY_MAX_MS.
    expect(performance.now() - started).toBeLessThan(WS_REPLY_MAX_MS);
  });

  test("a message nobody answers ends the wait at WS_REPLY_MAX_MS, not the network's 3 s bound", async () => {
    const ping = await refOf("Ping sink");
    const started = performance.now();
    const r = await run(["click", ping]);
    const took = performance.now() - started;
    expect(r.json.ok).toBe(true);
    expect(r.json).not.toHaveProperty("diff");
    expect(took).toBeGreaterThanOrEqual(WS_REPLY_MAX_MS);
    expect(took).toBeLessThan(2_500);
  });
});
