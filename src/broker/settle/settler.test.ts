/**
 * The settler without a browser: page calls run the real page runtime in happy-dom behind the
 * fake CDP server (test/support/fake-tab.ts); the test sends the tab's CDP events. The cases
 * are those of the incident e2e files (test/e2e/settle-*.test.ts), asserted on what the
 * settler saw and waited for, never on how long it took.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { delay, type FakeFrame, type FakeTab, fakeTab } from "../../../test/support/fake-tab.ts";
import { ensureNetwork } from "../net/network.ts";
import { callPage } from "../world.ts";
import { type SettleCall, Settler } from "./settler.ts";

const tabs: FakeTab[] = [];
const settlers: Settler[] = [];
afterEach(async () => {
  for (const s of settlers.splice(0)) s.stop();
  for (const t of tabs.splice(0)) await t.close();
});

async function setup(html = "<p>Hello</p>"): Promise<{ tab: FakeTab; s: Settler }> {
  const tab = await fakeTab(html);
  tabs.push(tab);
  const s = new Settler(tab.browser, tab.rec, tab.session);
  settlers.push(s);
  await s.ready;
  return { tab, s };
}

const deadline = () => Date.now() + 30_000;
let n = 0;

/** A fetch of `path` from line `line` of the page's script, started now (page clock = ours). */
function fetchStarted(f: FakeFrame, o: { path?: string; line?: number; type?: "Fetch" | "Document" } = {}): string {
  const requestId = `req${++n}`;
  const url = `https://a.test${o.path ?? "/api/items"}`;
  f.emit("Network.requestWillBeSent", {
    requestId,
    loaderId: "L",
    documentURL: "https://a.test/",
    request: { url, method: "GET", headers: {}, initialPriority: "High", referrerPolicy: "no-referrer" },
    timestamp: Date.now() / 1000,
    wallTime: Date.now() / 1000,
    initiator: {
      type: "script",
      stack: {
        callFrames: [
          { functionName: "load", scriptId: "1", url: "https://a.test/", lineNumber: o.line ?? 1, columnNumber: 0 },
        ],
      },
    },
    redirectHasExtraInfo: false,
    type: o.type ?? "Fetch",
  });
  return requestId;
}

function fetchEnded(f: FakeFrame, requestId: string): void {
  f.emit("Network.loadingFinished", { requestId, timestamp: Date.now() / 1000, encodedDataLength: 0 });
}

/** Sends "input" the way an action's dispatch does: whatever `fn` emits is near the input. */
async function input(s: Settler, f: FakeFrame, fn: () => void): Promise<void> {
  await s.input(async () => {
    fn();
    await f.flush();
  });
}

/** Waits until the page has the `count`th late-change call (its watcher is installed then). */
async function lateCallIn(tab: FakeTab, count: number): Promise<void> {
  const calls = () =>
    tab.server.received.filter(
      (r) => r.method === "Runtime.callFunctionOn" && JSON.stringify(r.params.arguments).includes('"op":"late"'),
    ).length;
  while (calls() < count) await delay(5);
}

/** Resolves `settle`, recording when it did among the test's own marks. */
function track<T>(p: Promise<T>, log: string[]): Promise<T> {
  return p.then((v) => {
    log.push("settled");
    return v;
  });
}

describe("settler: DOM quiet", () => {
  test("a page that did nothing settles with no mutation; what the dispatch changed is counted", async () => {
    const { tab, s } = await setup();
    await s.armQuiet();
    expect(s.armed).toBe(true);
    expect(await s.settle({ deadline: deadline() })).toBeUndefined();
    expect(s.effects.mutations).toBe(0);
    expect(s.armed).toBe(false);

    await s.armQuiet();
    await input(s, tab, () => tab.window.document.body.append(tab.window.document.createElement("div")));
    await s.settle({ deadline: deadline() });
    expect(s.effects.mutations).toBeGreaterThan(0);
    expect(s.effects.navigation).toBe(false);
  });
});

describe("settler: the action's requests", () => {
  test("a request the dispatch started is waited for, and the page settles again after its response lands", async () => {
    const { tab, s } = await setup();
    await s.armQuiet();
    let id = "";
    await input(s, tab, () => (id = fetchStarted(tab, { path: "/api/save" })));
    expect(s.effects.requests).toBe(1);
    expect(s.busy).toBe(true);
    const log: string[] = [];
    const settled = track(s.settle({ deadline: deadline() }), log);
    await delay(150);
    log.push("response");
    tab.window.document.body.append(tab.window.document.createElement("p"));
    fetchEnded(tab, id);
    await settled;
    expect(log).toEqual(["response", "settled"]);
    expect(s.busy).toBe(false);
    // The response's change is counted by the second settle.
    expect(s.effects.mutations).toBeGreaterThan(0);
  });

  test("the page's own poll is not the action's; a request to the polled address from another call site is", async () => {
    const tab = await fakeTab();
    tabs.push(tab);
    // The tab's history, before the action: a poll from line 7, four ticks over more than 250 ms.
    await ensureNetwork(tab.session);
    for (let i = 0; i < 4; i++) {
      fetchEnded(tab, fetchStarted(tab, { path: "/api/poll", line: 7 }));
      await tab.flush();
      await delay(90);
    }
    const s = new Settler(tab.browser, tab.rec, tab.session);
    settlers.push(s);
    await s.ready;
    // A tick while the action waits (no input near): background, never waited for.
    fetchStarted(tab, { path: "/api/poll", line: 7 });
    await tab.flush();
    expect(s.effects.requests).toBe(0);
    expect(s.busy).toBe(false);
    // The same address from a handler's own line is the action's, whenever it starts.
    const mine = fetchStarted(tab, { path: "/api/poll", line: 42 });
    await tab.flush();
    expect(s.effects.requests).toBe(1);
    expect(s.busy).toBe(true);
    fetchEnded(tab, mine);
    await tab.flush();
    expect(s.busy).toBe(false);
  });

  test("a WebSocket message sent near the input waits for its answer on that socket", async () => {
    const { tab, s } = await setup();
    const frame = (payloadData: string) => ({
      requestId: "ws1",
      timestamp: Date.now() / 1000,
      response: { opcode: 1, mask: false, payloadData },
    });
    tab.emit("Network.webSocketCreated", { requestId: "ws1", url: "wss://a.test/chat" });
    await input(s, tab, () => tab.emit("Network.webSocketFrameSent", frame("send")));
    expect(s.effects.requests).toBe(1);
    expect(s.busy).toBe(true);
    const log: string[] = [];
    const settled = track(s.settle({ deadline: deadline() }), log);
    await delay(150);
    log.push("answer");
    tab.emit("Network.webSocketFrameReceived", frame("ok"));
    await settled;
    expect(log).toEqual(["answer", "settled"]);
    expect(s.responded).toBeGreaterThan(0);
  });
});

describe("settler: frames, navigation, dialogs", () => {
  test("a change in the target's cross-origin frame is counted, settled in the frame's own session", async () => {
    const { tab, s } = await setup();
    const child = await tab.frame("F1", "<p>In the frame</p>");
    await s.armQuiet({ session: child.session, frameId: "F1" });
    await input(s, tab, () => child.window.document.body.append(child.window.document.createElement("b")));
    await s.settle({ deadline: deadline() });
    // The top document did not change: what was counted is the frame's.
    expect(s.effects.mutations).toBeGreaterThan(0);
    // Both the top document's watcher and the frame's were settled on.
    const settles = tab.server.received.filter(
      (r) => r.method === "Runtime.callFunctionOn" && JSON.stringify(r.params.arguments).includes('"op":"settle"'),
    );
    expect(new Set(settles.map((r) => r.sessionId))).toEqual(new Set([tab.session.sessionId, child.session.sessionId]));
  });

  test("a navigation that begins during the settle is waited for until its document loads; none is observed in the old one", async () => {
    const { tab, s } = await setup();
    await s.armQuiet();
    await input(s, tab, () =>
      tab.emit("Page.frameRequestedNavigation", {
        frameId: "T1",
        reason: "anchorClick",
        url: "https://b.test/next",
        disposition: "currentTab",
      }),
    );
    expect(s.effects.navigation).toBe(true);
    expect(s.pendingNavigation?.url).toBe("https://b.test/next");
    const log: string[] = [];
    const settled = track(
      s.settle({ deadline: deadline(), also: [{ fn: "quiet", arg: { op: "install", id: 1e9 } }] }),
      log,
    );
    await delay(100);
    tab.emit("Page.frameNavigated", {
      frame: {
        id: "T1",
        loaderId: "L2",
        url: "https://b.test/next",
        domainAndRegistry: "b.test",
        securityOrigin: "https://b.test",
        mimeType: "text/html",
        secureContextType: "Secure",
        crossOriginIsolatedContextType: "NotIsolated",
        gatedAPIFeatures: [],
      },
      type: "Navigation",
    });
    await tab.flush();
    expect(s.pendingNavigation).toBeUndefined();
    log.push("load");
    tab.emit("Page.lifecycleEvent", { frameId: "T1", loaderId: "L2", name: "load", timestamp: 1 });
    // A navigation answers no read-back: the step's `also` did not run.
    expect(await settled).toBeUndefined();
    expect(log).toEqual(["load", "settled"]);
  });

  test("a same-document navigation is a URL change, not a navigation to wait for", async () => {
    const { tab, s } = await setup();
    await s.armQuiet();
    await input(s, tab, () => {
      tab.emit("Page.frameStartedLoading", { frameId: "T1" });
      tab.emit("Page.navigatedWithinDocument", {
        frameId: "T1",
        url: "https://t1.test/#b",
        navigationType: "fragment",
      });
    });
    expect(s.effects).toMatchObject({ navigation: false, urlChanged: true });
    expect(s.busy).toBe(false);
    await s.settle({ deadline: deadline() });
  });

  test("a dialog ends the settle at once: the blocked page answers nothing", async () => {
    const { tab, s } = await setup();
    await s.armQuiet();
    tab.blocked = true;
    const settled = s.settle({ deadline: deadline() });
    tab.emit("Page.javascriptDialogOpening", {
      url: "https://t1.test/",
      frameId: "T1",
      message: "Sure?",
      type: "confirm",
      hasBrowserHandler: false,
      defaultPrompt: "",
    });
    expect(await settled).toBeUndefined();
    expect(s.effects.dialog).toBe(true);
  });
});

describe("settler: late changes", () => {
  test("a change a page timer makes after the settle is waited for and settled on; a page that shows nothing answers false", async () => {
    const { tab, s } = await setup();
    const main = { session: tab.session, frameId: "T1" };
    expect(await s.lateChange(main, 100, deadline())).toBe(false);
    expect(s.effects.mutations).toBe(0);
    const late = s.lateChange(main, 5_000, deadline());
    await lateCallIn(tab, 2);
    tab.window.setTimeout(() => tab.window.document.body.append(tab.window.document.createElement("menu")), 20);
    expect(await late).toBe(true);
    expect(s.effects.mutations).toBeGreaterThan(0);
  });

  test("a request the page starts in the late window counts as the change", async () => {
    const { tab, s } = await setup();
    // The page's late wait ends at a DOM change; a request is looked at when its window is over.
    const late = s.lateChange({ session: tab.session, frameId: "T1" }, 1_000, deadline());
    await lateCallIn(tab, 1);
    const id = fetchStarted(tab, { path: "/api/suggest", line: 3 });
    await tab.flush();
    fetchEnded(tab, id);
    expect(await late).toBe(true);
    expect(s.effects.requests).toBe(1);
  });
});

describe("settler: the reply's settle", () => {
  test("waits for the action's request, then settles, reads back and observes in one page call", async () => {
    const { tab, s } = await setup();
    await s.armQuiet();
    let id = "";
    await input(s, tab, () => (id = fetchStarted(tab, { path: "/api/save" })));
    const observed: number[] = [];
    const settled = s.settle({
      reply: true,
      deadline: deadline(),
      typing: false,
      readback: [{ fn: "quiet", arg: { op: "install", id: 2e9 } }],
      observe: async (call: SettleCall | undefined) => {
        const r = await callPage(tab.session, "T1", call?.steps ?? []);
        if (call) call.results = r.results;
        observed.push(r.results.length);
        return "snapshot";
      },
    });
    await delay(100);
    tab.window.document.body.append(tab.window.document.createElement("p"));
    fetchEnded(tab, id);
    const out = await settled;
    // One observation, after the response: the settle step and the read-back ran in its call.
    expect(observed).toEqual([2]);
    expect(out.observation).toBe("snapshot");
    expect(out.readback).toHaveLength(1);
    expect(out.pending).toBeUndefined();
    expect(s.effects.mutations).toBeGreaterThan(0);
  });
});
