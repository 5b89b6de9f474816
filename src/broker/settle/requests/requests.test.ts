import { describe, expect, test } from "bun:test";
import type { Protocol } from "devtools-protocol";
import { FakeNet } from "../../../../test/support/fake-net.ts";
import { rememberRequests } from "./polling.ts";
import { ActionRequests, bodyLength } from "./requests.ts";

// The page polls /api/items from line 1 of its script every 100 ms (a setInterval: on a grid);
// the action's requests come from other lines, or from line 1 too (a shared fetching function).

/** A page that has polled for 1.2 s (12 ticks, page time 0 to 1100) before the action. */
function polledPage(): FakeNet {
  const net = new FakeNet();
  rememberRequests(net, net.now);
  net.poll(0, 12, 100);
  return net;
}

function action(net: FakeNet) {
  const effects = { requests: 0 };
  const reqs = new ActionRequests(
    net,
    () => effects.requests++,
    () => undefined,
    net.now,
  );
  return {
    reqs,
    effects,
    /** Whether the request is the action's (waited for), right after its start. */
    mine: (p: Protocol.Network.RequestWillBeSentEvent) => reqs.pending.has(p.requestId),
    stop: () => reqs.stop(),
  };
}

/** A poll tick at page time `ms` (line 1), answered 5 ms later; whether the action took it. */
function tick(net: FakeNet, a: ReturnType<typeof action>, ms: number): boolean {
  const p = net.sent(ms);
  const taken = a.mine(p);
  net.finished(p.requestId, ms + 5);
  return taken;
}

describe("an action's requests to an address the page polls", () => {
  test("keys typed one after another, each fetching from a new call site: every request is the action's (no poll made of the input's own requests)", () => {
    const net = polledPage();
    const a = action(net);
    net.at(1150);
    a.reqs.inputs.dispatching();
    // Six keys 80 ms apart, each fetching at once; the poll ticks on meanwhile.
    const keys: boolean[] = [];
    const events = [
      ...[0, 1, 2, 3, 4, 5].map((i) => ({ ms: 1160 + i * 80, key: true })),
      ...[1200, 1300, 1400, 1500].map((ms) => ({ ms, key: false })),
    ].sort((x, y) => x.ms - y.ms);
    for (const e of events) {
      if (e.key) keys.push(a.mine(net.sent(e.ms, { line: 2 })));
      else expect(tick(net, a, e.ms)).toBe(false);
    }
    expect(keys).toEqual([true, true, true, true, true, true]);
    a.stop();
  });

  test("a search box debounced per key (60 ms) driven by keys with a delay between them (120 ms, 300 ms): every query is the action's, none a poll", () => {
    for (const delay of [120, 300]) {
      const net = polledPage();
      const a = action(net);
      net.at(1150);
      a.reqs.inputs.dispatching();
      const queries: boolean[] = [];
      let ms = 1160;
      for (let i = 0; i < 6; i++) {
        // A key, acknowledged 10 ms later; its debounce fetches 60 ms after that, away from the key.
        net.at(ms);
        a.reqs.inputs.stepping();
        net.at(ms + 10);
        a.reqs.inputs.stepped();
        const q = net.sent(ms + 70, { line: 2 });
        queries.push(a.mine(q));
        net.finished(q.requestId, ms + 80);
        ms += 10 + delay;
      }
      net.at(ms);
      a.reqs.inputs.dispatched();
      expect(queries).toEqual([true, true, true, true, true, true]);
      a.stop();
    }
  });

  test('a "Load all" button fetching page after page (each right after the last answer): every page is the action\'s', () => {
    const net = polledPage();
    const a = action(net);
    net.at(1150);
    a.reqs.inputs.dispatching();
    net.at(1160);
    a.reqs.inputs.dispatched();
    const pages: boolean[] = [];
    let ms = 1165;
    for (let i = 0; i < 6; i++) {
      const p = net.sent(ms, { line: 3 });
      pages.push(a.mine(p));
      net.finished(p.requestId, ms + 100);
      ms += 101;
    }
    expect(pages).toEqual([true, true, true, true, true, true]);
    expect(a.effects.requests).toBe(6);
    a.stop();
  });

  test("a click that starts a second, fast poll from a new call site: its first requests are the action's, then it is a poll", () => {
    const net = polledPage();
    const a = action(net);
    net.at(1150);
    a.reqs.inputs.dispatching();
    expect(a.mine(net.sent(1155, { line: 4 }))).toBe(true);
    net.at(1160);
    a.reqs.inputs.dispatched();
    const taken: boolean[] = [];
    for (let ms = 1180; ms < 1800; ms += 25) {
      const p = net.sent(ms, { line: 4 });
      taken.push(a.mine(p));
      net.finished(p.requestId, ms + 3);
    }
    expect(taken.slice(-10)).toEqual(Array<boolean>(10).fill(false));
    a.stop();
  });

  test("keys with --submit whose Enter starts a fast poll while the dispatch settles: its first requests are the action's, then it is a poll", () => {
    const net = polledPage();
    const a = action(net);
    net.at(1150);
    a.reqs.inputs.dispatching();
    net.at(1155);
    a.reqs.inputs.stepping();
    net.at(1157);
    a.reqs.inputs.stepped();
    net.at(1160);
    a.reqs.inputs.settling();
    const taken: boolean[] = [];
    for (let ms = 1180; ms < 1800; ms += 25) {
      const p = net.sent(ms, { line: 4 });
      taken.push(a.mine(p));
      net.finished(p.requestId, ms + 3);
    }
    expect(taken.slice(-10)).toEqual(Array<boolean>(10).fill(false));
    net.at(1800);
    a.reqs.inputs.settled();
    a.reqs.inputs.dispatched();
    a.stop();
  });

  test("a 1 s poll whose recent ticks all came during earlier key actions (doubtful, no rhythm): a click's second request in the beat from the poll's site is the action's", () => {
    const net = new FakeNet();
    rememberRequests(net, net.now);
    net.poll(0, 4, 1000);
    // Four key actions, each with a tick inside its input window.
    for (let k = 4; k < 8; k++) {
      const a = action(net);
      net.at(k * 1000 - 10);
      a.reqs.inputs.dispatching();
      tick(net, a, k * 1000);
      net.at(k * 1000 + 10);
      a.reqs.inputs.dispatched();
      a.stop();
    }
    const click = action(net);
    // The next tick, away from the click's input: the poll's.
    expect(tick(net, click, 8000)).toBe(false);
    net.at(8200);
    click.reqs.inputs.dispatching();
    // A Refresh click through the shared load(): a second request in the beat, at the input.
    expect(click.mine(net.sent(8205))).toBe(true);
    net.at(8210);
    click.reqs.inputs.dispatched();
    // Away from any input, a request of the poll's site stays the poll's.
    expect(click.mine(net.sent(8600))).toBe(false);
    click.stop();
  });

  test("a call site the page fetched from once or twice (a refresh on load, on focus) is not the poll: the click's request from it is the action's", () => {
    const net = new FakeNet();
    rememberRequests(net, net.now);
    net.finished(net.sent(50, { line: 9 }).requestId, 60);
    net.poll(100, 12, 100);
    net.finished(net.sent(700, { line: 9 }).requestId, 710);
    const a = action(net);
    net.at(1250);
    a.reqs.inputs.dispatching();
    expect(a.mine(net.sent(1255, { line: 9 }))).toBe(true);
    a.stop();
  });

  test("a composite action that settles inside its dispatch: no request is near its input while it settles, and back-to-back ones leave the address polled", () => {
    const net = polledPage();
    let grid = 1200;
    for (let k = 0; k < 6; k++) {
      const start = 1150 + k * 1000;
      const a = action(net);
      net.at(start);
      a.reqs.inputs.dispatching();
      net.at(start + 10);
      a.reqs.inputs.settling();
      for (; grid < start + 900; grid += 100) {
        expect(tick(net, a, grid)).toBe(false);
        // A second request of the poll's own site in a beat, long after the input: not the action's.
        if (k === 0 && grid === 1400) expect(a.mine(net.sent(1450))).toBe(false);
      }
      net.at(start + 900);
      a.reqs.inputs.settled();
      net.at(start + 905);
      a.reqs.inputs.dispatched();
      for (; grid < start + 1000; grid += 100) expect(tick(net, a, grid)).toBe(false);
      a.stop();
    }
    const last = action(net);
    net.at(7150);
    last.reqs.inputs.dispatching();
    net.at(7160);
    last.reqs.inputs.dispatched();
    expect(tick(net, last, 7200)).toBe(false);
    last.stop();
  });

  test("a composite action's inputs sent as steps (keys with a delay between them): only the steps are near an input", () => {
    const net = polledPage();
    const a = action(net);
    net.at(1140);
    a.reqs.inputs.dispatching();
    // The steps: a key at 1150 and one at 1450, each acknowledged 2 ms later.
    net.at(1150);
    a.reqs.inputs.stepping();
    net.at(1152);
    a.reqs.inputs.stepped();
    expect(tick(net, a, 1200)).toBe(false);
    expect(tick(net, a, 1300)).toBe(false);
    // A second request of the poll's own site in a beat, in the delay between the keys: not the action's.
    expect(a.mine(net.sent(1340))).toBe(false);
    expect(tick(net, a, 1400)).toBe(false);
    net.at(1450);
    a.reqs.inputs.stepping();
    // The second key's handler calls the poll's function: a second request in the beat, near the key.
    expect(a.mine(net.sent(1451))).toBe(true);
    net.at(1452);
    a.reqs.inputs.stepped();
    net.at(1460);
    a.reqs.inputs.dispatched();
    a.stop();
  });

  test("a dispatch that marks its inputs as steps (select, drag, upload, dialog): its waits and probes before and between them are not near an input", () => {
    const net = polledPage();
    const a = action(net);
    net.at(1140);
    a.reqs.inputs.dispatching(true);
    // Before its first input (refs resolved, probes, a file copied): the poll's second request in a beat is not the action's.
    expect(tick(net, a, 1200)).toBe(false);
    expect(a.mine(net.sent(1210))).toBe(false);
    net.at(1250);
    a.reqs.inputs.stepping();
    net.at(1252);
    a.reqs.inputs.stepped();
    // While it waits for what the input shows (an ARIA list's options): not the action's either.
    expect(tick(net, a, 1400)).toBe(false);
    expect(a.mine(net.sent(1420))).toBe(false);
    net.at(1450);
    a.reqs.inputs.stepping();
    // The option's click runs the poll's function: a second request in the beat, at the input.
    expect(a.mine(net.sent(1451))).toBe(true);
    net.at(1452);
    a.reqs.inputs.stepped();
    net.at(1600);
    a.reqs.inputs.dispatched();
    a.stop();
  });

  test("two actions open at once (a dialog answer while the click it blocked waits) leave each tick once in the history", () => {
    const net = new FakeNet();
    rememberRequests(net, net.now);
    net.poll(0, 4, 100);
    const first = action(net);
    net.at(340);
    first.reqs.inputs.dispatching();
    net.at(345);
    first.reqs.inputs.dispatched();
    const second = action(net);
    net.at(350);
    second.reqs.inputs.dispatching();
    net.at(355);
    second.reqs.inputs.dispatched();
    for (let ms = 400; ms <= 1500; ms += 100) tick(net, first, ms);
    first.stop();
    second.stop();
    // A grid: a tick an input holds 16 ms late, and the next one back on the grid, are the poll's.
    const a = action(net);
    net.at(1590);
    a.reqs.inputs.dispatching();
    expect(tick(net, a, 1616)).toBe(false);
    expect(tick(net, a, 1700)).toBe(false);
    net.at(1710);
    a.reqs.inputs.dispatched();
    a.stop();
  });

  test("a redirect hop is the request it continues: not a second start in the poll's beat, not a second request of the action", () => {
    const net = polledPage();
    const a = action(net);
    net.at(1195);
    a.reqs.inputs.dispatching();
    const own = net.sent(1197, { line: 5 });
    expect(a.mine(own)).toBe(true);
    net.sent(1199, { line: 5, id: own.requestId, redirect: true });
    const poll = net.sent(1200);
    expect(a.mine(poll)).toBe(false);
    net.sent(1203, { id: poll.requestId, redirect: true });
    expect(a.mine(poll)).toBe(false);
    expect(a.effects.requests).toBe(1);
    a.stop();
  });
});

describe("an action's requests in out-of-process frames (their own sessions)", () => {
  /** A frame's session: its own events and history, and an end; on the tab's clock. */
  class FrameNet extends FakeNet {
    private readonly closers: (() => void)[] = [];
    onClose(fn: () => void): () => void {
      this.closers.push(fn);
      return () => void this.closers.splice(this.closers.indexOf(fn), 1);
    }
    close(): void {
      for (const fn of [...this.closers]) fn();
    }
  }

  /**
   * The tab polls /api/items and its cross-origin frame /api/frame, each from line 1 of its
   * own script every 100 ms, for 1.2 s before the action (page time 0 to 1100).
   */
  function framedPage(): { top: FakeNet; frame: FrameNet } {
    const top = new FakeNet();
    const frame = new FrameNet(top);
    rememberRequests(top, top.now);
    rememberRequests(frame, frame.now);
    for (let ms = 0; ms < 1200; ms += 100) {
      top.poll(ms, 1, 100);
      frame.poll(ms + 1, 1, 100, { path: "/api/frame" });
    }
    return { top, frame };
  }

  test("a frame's polling is judged by the frame's history, not the tab's: its ticks are not the action's, its second request in a beat at the input is", () => {
    const { top, frame } = framedPage();
    const a = action(top);
    a.reqs.add(frame);
    top.at(1150);
    a.reqs.inputs.dispatching();
    // The click's handler in the frame calls the frame's load(): a second request in its beat, at the input.
    const extra = frame.sent(1155, { path: "/api/frame" });
    expect(a.reqs.pending.size).toBe(1);
    // And a request of its own call site: the action's whatever the histories say.
    const own = frame.sent(1156, { path: "/api/answer", line: 7 });
    expect(a.reqs.pending.size).toBe(2);
    top.at(1160);
    a.reqs.inputs.dispatched();
    frame.finished(extra.requestId, 1165);
    // The frame's next ticks, on its grid (the tab never fetched /api/frame): the poll's.
    expect(tick(top, a, 1200)).toBe(false);
    for (const ms of [1201, 1301]) {
      frame.finished(frame.sent(ms, { path: "/api/frame" }).requestId, ms + 5);
      expect(a.reqs.pending.size).toBe(1);
    }
    // A second request in a beat, away from any input: the poll's too.
    frame.sent(1350, { path: "/api/frame" });
    expect(a.reqs.pending.size).toBe(1);
    frame.finished(own.requestId, 1900);
    expect(a.reqs.pending.size).toBe(0);
    expect(a.effects.requests).toBe(2);
    a.stop();
  });

  test("a frame's navigation that starts on the tab's session and ends on the new frame's own (an iframe sent to another site) ends the wait", () => {
    const top = polledPage();
    const a = action(top);
    top.at(1150);
    a.reqs.inputs.dispatching();
    const nav = top.sent(1155, { path: "/widget", type: "Document" });
    const fetched = top.sent(1156, { path: "/api/answer", line: 7, id: "f1" });
    expect(a.reqs.pending.size).toBe(2);
    top.at(1160);
    a.reqs.inputs.dispatched();
    // The frame's new process is attached (paused) before its document commits there.
    const frame = new FrameNet(top);
    a.reqs.add(frame);
    frame.finished(nav.requestId, 1700);
    expect(a.reqs.pending.size).toBe(1);
    expect(a.reqs.responded).toBeGreaterThan(0);
    // Only documents cross sessions: another session's request of the same id is another request.
    frame.finished("f1", 1710);
    expect(a.reqs.pending.size).toBe(1);
    top.finished(fetched.requestId, 1720);
    expect(a.reqs.pending.size).toBe(0);
    a.stop();
  });

  test("a frame that goes while the action's request in it runs takes that request off the wait", () => {
    const top = polledPage();
    const frame = new FrameNet(top);
    const a = action(top);
    a.reqs.add(frame);
    a.reqs.add(frame);
    frame.sent(1155, { path: "/api/answer", line: 7 });
    expect(a.reqs.pending.size).toBe(1);
    frame.close();
    expect(a.reqs.pending.size).toBe(0);
    expect(a.effects.requests).toBe(1);
    a.stop();
  });
});

describe("an action's request is answered once its body's bytes are in", () => {
  test("a body of known length: answered at its last byte, not when Chromium ends a body the page never read", async () => {
    const net = new FakeNet();
    const a = action(net);
    const p = net.sent(100, { path: "/log", line: 3 });
    expect(a.mine(p)).toBe(true);
    net.answered(p.requestId, 110, { headers: { "Content-Length": "5" }, chunks: [3] });
    expect(a.reqs.pending.size).toBe(1);
    expect(a.reqs.responded).toBe(0);
    net.data(p.requestId, 113, 2);
    expect(a.reqs.pending.size).toBe(0);
    const at = a.reqs.responded;
    expect(at).toBeGreaterThan(0);
    // Its end 50 ms later is no second answer (`responded` is our wall clock).
    await Bun.sleep(5);
    net.finished(p.requestId, 163);
    expect(a.reqs.responded).toBe(at);
    a.stop();
  });

  test("an answer without a body (204, Content-Length 0) is answered with its headers", () => {
    for (const o of [{ status: 204 }, { headers: { "content-length": "0" } }]) {
      const net = new FakeNet();
      const a = action(net);
      const p = net.sent(100, { path: "/log", line: 3 });
      net.answered(p.requestId, 110, o);
      expect(a.reqs.pending.size).toBe(0);
      a.stop();
    }
  });

  test("a compressed, chunked, unsized or HTTP/2 body, and a sized one whose bytes never come (HEAD), wait for the end", () => {
    const cases: { headers: Record<string, string>; chunks: number[]; protocol?: string }[] = [
      { headers: { "content-length": "5", "content-encoding": "gzip" }, chunks: [5, 5, 5] },
      { headers: { "transfer-encoding": "chunked" }, chunks: [5, 5, 5] },
      { headers: { "content-length": "5", "transfer-encoding": "chunked" }, chunks: [5, 5, 5] },
      { headers: { "content-length": "five" }, chunks: [5, 5, 5] },
      { headers: { "content-length": "5" }, chunks: [5], protocol: "h2" },
      { headers: { "content-length": "5" }, chunks: [] },
    ];
    for (const o of cases) {
      const net = new FakeNet();
      const a = action(net);
      const p = net.sent(100, { path: "/log", line: 3 });
      net.answered(p.requestId, 110, o);
      expect(a.reqs.pending.size).toBe(1);
      net.finished(p.requestId, 160);
      expect(a.reqs.pending.size).toBe(0);
      a.stop();
    }
  });

  test("bodyLength reads the header whatever its case, and only an unencoded length over HTTP/1.x", () => {
    const h1 = (status: number, headers: Record<string, string>, protocol = "http/1.1") =>
      bodyLength({ status, headers, protocol });
    expect(h1(200, { "Content-Length": " 12 " })).toBe(12);
    expect(h1(200, { "content-length": "12" }, "HTTP/1.0")).toBe(12);
    expect(h1(200, { "content-length": "12", "Content-Encoding": "identity" })).toBe(12);
    expect(h1(200, { "content-length": "12", "content-encoding": "br" })).toBeUndefined();
    expect(h1(200, { "content-length": "-1" })).toBeUndefined();
    expect(h1(200, {})).toBeUndefined();
    expect(h1(304, { "content-length": "40" })).toBe(0);
    expect(h1(204, {}, "h3")).toBeUndefined();
    expect(bodyLength({ status: 200, headers: { "content-length": "12" } })).toBeUndefined();
    expect(
      bodyLength({ status: 200, headers: { "content-length": "12" }, protocol: "http/1.1", fromServiceWorker: true }),
    ).toBeUndefined();
  });
});
