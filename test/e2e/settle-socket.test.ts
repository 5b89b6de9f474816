/**
 * An action that sends a message over a WebSocket waits for the socket's answer, like a
 * request's response: a chat that shows a message only once its server echoes it (here 150 ms
 * later, well past the 20 ms floor) shows it in the click's reply. A message nobody answers
 * costs a bounded wait (WS_REPLY_MAX_MS), not the network's 3 s. Not waited for at all: what
 * the page sends while text is typed (a typing indicator), and a message on a socket the page
 * keeps sending on by itself (a presence stream) that happens to go out near the input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WS_REPLY_MAX_MS } from "../../src/broker/settle/requests/sockets.ts";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, refNamed } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

/** When each message reached the server (performance.now()), by socket path. */
const arrived: Record<string, { text: string; at: number }[]> = {
  "/echo": [],
  "/sink": [],
  "/stream": [],
  "/void": [],
};
// "/echo" answers every message 150 ms after it came in; the others never answer.
const socket = Bun.serve<{ path: string }>({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req, srv) =>
    srv.upgrade(req, { data: { path: new URL(req.url).pathname } }) ? undefined : new Response("no", { status: 400 }),
  websocket: {
    message(ws, msg) {
      arrived[ws.data.path]?.push({ text: String(msg), at: performance.now() });
      if (ws.data.path === "/echo") setTimeout(() => ws.send(String(msg)), 150);
    },
  },
});

const site = startFixtureServer({
  "/chat": `<!doctype html><title>Chat</title><p id=state></p><ul id=log></ul>
    <input id=msg aria-label="Message"> <button id=send>Send</button> <button id=ping>Ping</button> <button id=wave>Wave</button>
    <script>
      const at = (p) => new WebSocket("ws://127.0.0.1:${socket.port}" + p);
      const echo = at("/echo"), sink = at("/sink"), stream = at("/stream"), dead = at("/void");
      let open = 0;
      echo.onopen = sink.onopen = stream.onopen = dead.onopen = () => { if (++open === 4) state.textContent = "sockets open"; };
      // Shown only once the server echoes it, as a button to act on.
      echo.onmessage = (e) => { const li = document.createElement("li"); li.innerHTML = "<button></button>"; li.firstChild.textContent = "Sent: " + e.data; log.append(li); };
      const submit = () => { echo.send(msg.value || "hello"); msg.value = ""; };
      send.onclick = submit;
      msg.onkeydown = (e) => { if (e.key === "Enter") submit(); };
      // A typing indicator nobody answers.
      msg.oninput = () => sink.send("typing");
      // A socket that carries nothing else and answers nothing.
      ping.onclick = () => dead.send("ping");
      // A presence stream the page keeps sending by itself; a wave goes out on it too.
      setInterval(() => stream.readyState === 1 && stream.send("here"), 100);
      wave.onclick = () => stream.send("wave");
    </script>`,
});
const env = makeBpEnv();
const KEY = "agent-settle-socket";
const run = (args: string[]) => env.run(args, { key: KEY });

type El = { r: number; n?: string };
const refOf = (name: string) => refNamed(run, name);
const added = (json: Record<string, unknown>) =>
  ((json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n);
/** Runs a command and says how long it took, spawn to exit. */
const timed = async (args: string[]) => {
  const started = performance.now();
  const r = await run(args);
  expect(r.json.ok).toBe(true);
  return { json: r.json, took: performance.now() - started };
};

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

  test("typed text with --submit: the typing indicator is not waited for, the message sent on Enter is", async () => {
    const r = await run(["type", await refOf("Message"), "hi there", "--submit"]);
    expect(r.json.ok).toBe(true);
    expect(added(r.json)).toEqual(["Sent: hi there"]);
    // Timed on the server, apart from process start-ups: a wait for the indicator's answer
    // would hold the Enter back WS_REPLY_MAX_MS after it.
    const typing = arrived["/sink"]?.filter((m) => m.text === "typing").at(-1);
    const message = arrived["/echo"]?.find((m) => m.text === "hi there");
    expect(typing && message).toBeTruthy();
    expect((message?.at ?? 0) - (typing?.at ?? 0)).toBeLessThan(WS_REPLY_MAX_MS * 0.9);
  });

  // A message the action waits for counts in network_requests: its absence says none was waited for.
  test("a printable key pressed into the field is typed text: its indicator is not waited for", async () => {
    await run(["click", await refOf("Message")]);
    const before = arrived["/sink"]?.length ?? 0;
    const { json } = await timed(["press", "a"]);
    expect(arrived["/sink"]?.slice(before).map((m) => m.text)).toEqual(["typing"]);
    expect(JSON.stringify(json)).not.toContain("network_requests");
  });

  test("a message on a socket the page keeps sending on by itself is its chatter, not the action's", async () => {
    const { json } = await timed(["click", await refOf("Wave")]);
    expect(arrived["/stream"]?.some((m) => m.text === "wave")).toBe(true);
    expect(JSON.stringify(json)).not.toContain("network_requests");
  });

  test("a message nobody answers ends the wait at WS_REPLY_MAX_MS, not the network's 3 s bound", async () => {
    const { json, took } = await timed(["click", await refOf("Ping")]);
    expect(json).not.toHaveProperty("diff");
    expect(took).toBeGreaterThanOrEqual(WS_REPLY_MAX_MS);
    expect(took).toBeLessThan(2_500);
  });
});
