/**
 * An action's request is answered once the bytes of its body are in (src/broker/settle/requests/requests.ts), not
 * when Chromium ends the request: for a fetch whose body the page never reads (a fire-and-forget log call on a
 * click) that end mostly comes some 50 ms after the bytes. The trace (BROWSER_PILOT_PHASES, each request's record
 * ends with its reply) shows replies written before that end; the replies show that an answer the page does read,
 * whole or in two parts, is still rendered in them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, type BpResult } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { nthTrace, traceTo, type TraceEntry } from "../support/phases-trace.ts";

requireChromium();

/**
 * A sized answer sent in two parts 60 ms apart, from a socket of our own (Bun's server sends a streamed body
 * chunked, without its length): the page's read ends only with the second part.
 */
let served = 0;
const halves = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    data(sock) {
      const body = `half ${++served}`;
      const cut = 4;
      sock.write(
        `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n` +
          `Access-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n${body.slice(0, cut)}`,
      );
      setTimeout(() => {
        sock.write(body.slice(cut));
        sock.end();
      }, 60);
    },
  },
});

const site = startFixtureServer({
  "/log": () => new Response("ok", { headers: { "content-type": "text/plain" } }),
  "/answer": (url) =>
    new Response(`answer ${url.searchParams.get("n")}`, { headers: { "content-type": "text/plain" } }),
  "/bytes": `<!doctype html><title>Bytes</title><div id=out></div><output id=count>0</output>
    <button onclick="logged()">Count and log</button>
    <button onclick="read('/answer')">Load the answer</button>
    <button onclick="read('http://127.0.0.1:${halves.port}/halves')">Load in two parts</button>
    <script>
      let n = 0;
      function logged() {
        fetch("/log?n=" + (++n), { method: "POST", body: "clicked" });
        document.getElementById("count").textContent = String(n);
      }
      function read(path) {
        fetch(path + "?n=" + (++n)).then((r) => r.text()).then((t) => {
          document.getElementById("out").innerHTML = "<button>" + t + "</button>";
        });
      }
    </script>`,
});
const traced = makeBpEnv();
const file = traceTo(traced);
const KEY = "agent-bytes";
const run = (args: string[]) => traced.run(args, { key: KEY });

type El = { r: number; n?: string };

beforeAll(async () => {
  expect((await traced.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/bytes`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await traced.cleanup();
  site.stop();
  halves.stop(true);
});

const refOf = async (name: string): Promise<string> =>
  String(((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === name)?.r);

const added = (r: BpResult): string[] =>
  ((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((a) => a.n).filter((n) => n !== undefined);

/** The trace of the `n`th traced click (the broker appends it after writing the reply). */
async function clickTrace(n: number): Promise<TraceEntry[]> {
  const trace = await nthTrace(file, "click", n);
  expect(trace).toBeDefined();
  return trace ?? [];
}

describe("a click's request is answered once its body's bytes are in", () => {
  let clicks = 0;

  test("a log call whose answer the page never reads: the reply does not wait for Chromium to end the request", async () => {
    const ref = await refOf("Count and log");
    let before = 0;
    for (let i = 1; i <= 6; i++) {
      const r = await run(["click", ref]);
      clicks++;
      expect(r.json.ok).toBe(true);
      expect((r.json.evidence as { effects?: string[] }).effects).toEqual(
        expect.arrayContaining(["network_requests", "dom_changed"]),
      );
      const trace = await clickTrace(clicks);
      const at = (label: string, what?: string) =>
        trace.find((e) => e[1] === label && (what === undefined || e[2] === what))?.[0];
      expect(at("event", "Network.dataReceived")).toBeDefined();
      // Written last, past the record's cap too: with it the record lost nothing before the reply.
      expect(at("written")).toBeDefined();
      // The record ends with the reply: an end that came after it is not in it.
      if (at("event", "Network.loadingFinished") === undefined && at("event", "Network.loadingFailed") === undefined)
        before++;
    }
    // Chromium mostly ends such a request ~50 ms after its bytes, sometimes at once: a reply that waited for the end
    // (as every one did before) would never come before it.
    expect(before).toBeGreaterThan(0);
  });

  test.each([
    ["whole", "Load the answer", /^answer \d+$/],
    ["in two parts 60 ms apart", "Load in two parts", /^half \d+$/],
  ])("an answer the page reads, %s: its render is in every reply", async (_how, button, shown) => {
    const ref = await refOf(button);
    for (let i = 0; i < 4; i++) {
      const r = await run(["click", ref]);
      clicks++;
      expect(r.json.ok).toBe(true);
      expect(added(r)).toEqual([expect.stringMatching(shown)]);
    }
  });
});
