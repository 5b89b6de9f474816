/**
 * CDP round trips per command, counted on a recording hop in front of a real Chromium (a
 * command's deepest chain of calls, each sent on an answer to the one before). The budgets are
 * the counts docs/architecture.md reports; a change that adds a trip fails here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCdpRecorder, roundTrips, type CdpRecorder, type Sent } from "../support/cdp-recorder.ts";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, waitFor } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { startUserBrowser, type UserBrowser } from "../support/user-browser.ts";

requireChromium();

const PAGE = `<!doctype html><title>Small</title><h1>Small</h1>
  <label><input type=checkbox id=c> Remember me</label>
  <input aria-label="Name" id=n><input aria-label="Echo" oninput="document.getElementById('echo').textContent = this.value"><p id=echo></p><select aria-label="Size"><option>S</option><option>M</option></select>
  <button onclick="document.getElementById('out').textContent = 'Saved'">Save</button><p id=out></p>`;

// A listener-only control (the walk knows it only from the browser's listener list) and a link to go on with.
const LISTENED = `<!doctype html><title>Listened</title><div id=chip>Chip</div><a href="/other">Other</a>
  <script>document.getElementById('chip').addEventListener('click', () => {})</script>`;
/** Holds the slow page's image (and so its load) until the test lets it go, whenever the image is asked for. */
let releaseImage: () => void = () => undefined;
const imageGate = new Promise<void>((resolve) => {
  releaseImage = resolve;
});
const imageHeld = async () => {
  await imageGate;
  return new Response(new Uint8Array(0), { headers: { "content-type": "image/gif" } });
};
const site = startFixtureServer({
  "/": PAGE,
  // Interactive long before it loads (its image is held), and a control whose listener the load handler adds.
  "/slow-load": `<!doctype html><title>Slow</title><div id=chip>Chip</div><img src="/held.gif" alt="">
    <script>addEventListener("load", () => document.getElementById("chip").addEventListener("click", () => {}))</script>`,
  "/held.gif": imageHeld,
  "/other": "<!doctype html><title>Other</title><p>other</p>",
  "/listened": LISTENED,
  "/go": `<!doctype html><title>Go</title><a href="/listened">Go on</a>`,
  // A cross-origin frame (its own session) holding the listener-only control.
  "/framed": () =>
    `<!doctype html><title>Framed</title><button>Top</button><iframe src="${site.b}/listened" width=400 height=200></iframe>`,
  "/framed-same": `<!doctype html><title>Framed</title><button>Top</button><iframe src="/listened" width=400 height=200></iframe>`,
});
const env = makeBpEnv();
let browser: UserBrowser;
let rec: CdpRecorder;

beforeAll(async () => {
  browser = await startUserBrowser();
  rec = startCdpRecorder(browser.wsEndpoint);
  expect((await env.run(["connect", "--cdp-url", rec.url])).json.ok).toBe(true);
  expect((await env.run(["open", `${site.a}/`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  rec.stop();
  await browser.stop();
  site.stop();
});

type El = { r: number; n?: string };

async function measure(args: string[]): Promise<{
  trips: number;
  methods: string[];
  sent: Sent[];
  reply: Record<string, unknown>;
  installs: number;
  code: number[];
}> {
  rec.mark();
  const r = await env.run(args);
  expect(r.json.ok).toBe(true);
  const sent = rec.mark();
  return {
    trips: roundTrips(sent),
    methods: sent.map((s) => s.method),
    sent,
    reply: r.json,
    installs: sent.filter((s) => s.install).length,
    code: sent.map((s) => s.code),
  };
}

/**
 * Budgets per command on a small static page, warm (the page runtime installed, network
 * events on). docs/architecture.md prints the same table; lower is fine, higher fails.
 */
// Settling waits in the page (one call that also reads back and observes), so no poll repeats.
const BUDGET: Record<string, number> = {
  // One page call, nothing else: the snapshot runs only in the document seen last (its runtime
  // token) while no navigation event came, so the frame tree is not asked again; the page says
  // its click-listener marks still hold (no element added since they were made), so the
  // listeners are not read again.
  snapshot: 1,
  // An element was added: the page makes its click-listener marks again from the elements it
  // was handed last time and snapshots; the listener list names the same nodes, so that stands.
  "snapshot after a change": 2,
  // A listener-only element was added: the list names new nodes, which are resolved into our
  // world and marked in the same call as a new snapshot.
  "snapshot after a listened element was added": 4,
  // A new document: the frame tree, our world and the document's page-world handle together;
  // the listener list; the snapshot (no listened element: no handles to resolve).
  "snapshot of a new document": 3,
  // …and with listened elements: their handles in our world, then marks + snapshot in one call.
  "snapshot of a new document with listeners": 4,
  // The top document as above (no listeners there); the frame list and the iframe's frame id
  // together, the frame's own tree; in the frame's session its tree, our world and the document
  // handle together, listeners, handles, marks + snapshot (+1 when the frame's first call,
  // which installs the runtime there, or a release sent without waiting, lands between answers).
  "snapshot of a new document with a cross-origin frame": 10,
  // locate; mouse events; the settle call, ended by the new document (not run again in it);
  // then the new document's observation as above.
  "click that navigates": 7,
  // locate + probe + the frame's watcher in the frame, the top document's watcher (its own call);
  // the move alone, then whether the pointer came into the frame (the browser sends a
  // frame of another renderer the pointer only where it can hit it: actions.md); press and
  // release; the frame's settle + read-back beside the top document's settle + snapshot; the
  // frame list, the iframe's frame id and the frame's tree; the frame's snapshot (+1 when an
  // answer lands between those sent together).
  "click in a cross-origin frame": 11,
  // the frame's watcher in its world beside locate + probe + arm in the top document; mouse
  // events; the frame's settle beside the top document's settle + read-back + snapshot; the
  // inline frame's number (the frame list and its frame id).
  "click in a same-origin frame": 5,
  click: 3,
  "click checkbox": 3,
  hover: 3,
  press: 3,
  // focus read + arm; the first key (that call pinned the focus); the check and the second key;
  // settle + read-back + snapshot.
  keyboard: 5,
  scroll: 2,
  // locate + find + arm + the option set behind the watcher; settle + read-back + snapshot.
  select: 2,
  // locate (prepare, probe, arm), the focusing click, focus proved a task later (+ select, the
  // watcher armed again after it), the text, settle + read-back + snapshot: 5. Typing changed
  // nothing here, so whether the page listens to keys on the field is asked after the settle:
  // the field kept its focus, so one evaluation in the page's world reads its listeners.
  type: 6,
  // both ends resolved and probed together (the target's probe runs after the source was centred);
  // the drop listener and the watcher armed together; the pointer onto the source, the press, the
  // drags' interception on, the first move (and whether it began an HTML5 drag), the interception
  // off, seven more moves and the release, each on the answer to the last; settle; snapshot.
  drag: 18,
  // Page.navigate (the main frame's id is the target's: no frame tree), then the loaded page's title.
  open: 2,
  // …with the look: the frame tree, our world and the page-world document go out beside the
  // title (5 when they waited for it); the listener list; the snapshot.
  "open and look": 4,
  // A primitive comes back whole: nothing left in the object group to release.
  eval: 1,
  // The frame tree goes out with the page call (only the refs a match reports wait for it).
  read: 1,
  search: 1,
};

describe("CDP round trips", () => {
  test("each command stays within its round-trip budget; no call carries the page code in a document the tab's session saw begin", async () => {
    // The browser installed the runtime as the document began (the tab's session asked it to):
    // the first snapshot names it, once (a world without it would answer missing and be sent it).
    const first = await measure(["snapshot"]);
    expect(first.installs).toBe(0);
    expect(first.methods.filter((m) => m.startsWith("Runtime.callFunctionOn"))).toEqual([
      "Runtime.callFunctionOn[snapshot]",
    ]);
    const snap = await measure(["snapshot"]);
    // Not only one trip: one message (no frame tree alongside).
    expect(snap.methods).toEqual(["Runtime.callFunctionOn[snapshot]"]);
    const els = snap.reply.elements as El[];
    const ref = (n: string) => String(els.find((e) => e.n === n)?.r);
    // One of each first, so the budgets below are the warm cost.
    await measure(["click", ref("Save")]);
    const rows: [string, Awaited<ReturnType<typeof measure>>][] = [["snapshot", snap]];
    rows.push(["click", await measure(["click", ref("Save")])]);
    rows.push(["click checkbox", await measure(["click", ref("Remember me")])]);
    const quiet = await measure(["type", ref("Name"), "abc"]);
    rows.push(["type", quiet]);
    // The question in one call: no handles to describe, nothing to release.
    expect(quiet.methods.filter((m) => /DOMDebugger|DOM\.describeNode|Runtime\.release/.test(m))).toEqual([]);
    expect(quiet.methods.filter((m) => m === "Runtime.evaluate")).toHaveLength(1);
    // It said no: the field has no listener of its own, so no wait for late suggestions.
    expect(quiet.methods.filter((m) => m.includes("quiet:late"))).toEqual([]);
    // A field whose page reacted at once is not waiting on a debounce: no late wait, and no
    // listener question either (its work on the renderer's main thread held up the text and the
    // settle call when it was asked beside them).
    const echo = await measure(["type", ref("Echo"), "abc"]);
    expect(echo.methods.filter((m) => m.includes("quiet:late"))).toEqual([]);
    expect(echo.methods.filter((m) => /DOMDebugger|DOM\.describeNode|Runtime\.evaluate/.test(m))).toEqual([]);
    expect(echo.trips).toBeLessThanOrEqual(5);
    // The focus proved, re-pinned and the watcher armed again in one call (its hold waits only
    // when the page scheduled work since the arm; this one did not): no trip between it and the text.
    const depth = (method: string) => echo.sent.find((m) => m.method === method)?.depth ?? Number.NaN;
    expect(
      depth("Input.insertText") - depth("Runtime.callFunctionOn[quiet:hold,edit:pin,quiet:poll,quiet:install]"),
    ).toBe(1);
    // Typing again into the field that has focus: no click and no focus check.
    const refill = await measure(["type", ref("Echo"), "abc", "--clear"]);
    // locate, the text, settle.
    expect(refill.trips).toBeLessThanOrEqual(3);
    expect(refill.methods.filter((m) => m.startsWith("Input.dispatchMouseEvent"))).toEqual([]);
    rows.push(["keyboard", await measure(["keyboard", "ab"])]);
    // A type that fails before it settles (a button takes no text) leaves no watcher asking the
    // page for frames: the one its locate call armed is disconnected on the way out.
    rec.mark();
    expect((await env.run(["type", ref("Save"), "abc"])).json.code).toBe("action_not_verified");
    const finished = await waitFor(
      () => rec.mark().find((s) => s.method.includes("quiet:poll")),
      5_000,
      "the watcher's finish",
    );
    expect(finished).toBeDefined();
    rows.push(["select", await measure(["select", ref("Size"), "M"])]);
    rows.push(["press", await measure(["press", "Tab"])]);
    rows.push(["hover", await measure(["hover", ref("Save")])]);
    rows.push(["scroll", await measure(["scroll", "down"])]);
    rows.push(["eval", await measure(["eval", "1+1"])]);
    rows.push(["read", await measure(["read"])]);
    rows.push(["search", await measure(["search", "Save"])]);
    rows.push(["drag", await measure(["drag", ref("Save"), ref("Size")])]);
    await env.run(["eval", "document.body.append(document.createElement('p'))"]);
    rows.push(["snapshot after a change", await measure(["snapshot"])]);
    await env.run([
      "eval",
      "const d = document.createElement('div'); d.textContent = 'Chip'; d.addEventListener('click', () => {}); document.body.append(d); 1",
    ]);
    const listened = await measure(["snapshot"]);
    rows.push(["snapshot after a listened element was added", listened]);
    // The new listener-only element is a control now.
    expect((listened.reply.elements as El[]).some((e) => e.n === "Chip")).toBe(true);
    const over: string[] = [];
    for (const [name, m] of rows) {
      console.log(
        `${name}: ${m.trips} round trips, ${m.code.reduce((a, b) => a + b, 0)} characters of page code (${m.methods.join(" ")})`,
      );
      if (m.trips > (BUDGET[name] ?? 0)) over.push(`${name}: ${m.trips} > ${BUDGET[name]} (${m.methods.join(" ")})`);
    }
    expect(over).toEqual([]);
    // No call carries the page code…
    expect(rows.map(([, m]) => m.installs)).toEqual(rows.map(() => 0));
    // …and no warm call sends a script of its own: they call the installed runtime by name.
    expect(rows.flatMap(([name, m]) => m.code.filter((c) => c > 1_000).map((c) => `${name}: ${c}`))).toEqual([]);
    // …nor in a new document. The navigation itself: navigate, then the new title.
    const opened = await measure(["open", `${site.a}/other`]);
    console.log(`open: ${opened.trips} round trips (${opened.methods.join(" ")})`);
    expect(opened.trips).toBeLessThanOrEqual(BUDGET.open ?? 0);
    const fresh = await measure(["snapshot"]);
    expect(fresh.installs).toBe(0);
    expect(fresh.methods.filter((m) => m.startsWith("Runtime.callFunctionOn"))).toEqual([
      "Runtime.callFunctionOn[snapshot]",
    ]);
    console.log(`snapshot of a new document: ${fresh.trips} round trips (${fresh.methods.join(" ")})`);
    expect(fresh.trips).toBeLessThanOrEqual(BUDGET["snapshot of a new document"] ?? 0);
    const again = await measure(["snapshot"]);
    expect(again.installs).toBe(0);
    expect(again.trips).toBeLessThanOrEqual(BUDGET.snapshot ?? 0);
    // The navigation and its look in one command: the look's first calls go out beside the title's.
    const looked = await measure(["open", `${site.a}/other?look`, "--snapshot"]);
    console.log(`open and look: ${looked.trips} round trips (${looked.methods.join(" ")})`);
    expect(looked.reply.title).toBe("Other");
    expect(looked.installs).toBe(0);
    expect(looked.methods.filter((m) => m === "Page.getFrameTree")).toHaveLength(1);
    expect(looked.trips).toBeLessThanOrEqual(BUDGET["open and look"] ?? 0);
    // A new document whose page listens for clicks on an element nothing else marks as a control.
    expect((await env.run(["open", `${site.a}/listened`])).json.ok).toBe(true);
    const marked = await measure(["snapshot"]);
    console.log(`snapshot of a new document with listeners: ${marked.trips} round trips (${marked.methods.join(" ")})`);
    expect((marked.reply.elements as El[]).some((e) => e.n === "Chip")).toBe(true);
    expect(marked.trips).toBeLessThanOrEqual(BUDGET["snapshot of a new document with listeners"] ?? 0);
    expect(marked.installs).toBe(0);
    // A new document with a cross-origin frame: the frame's tree, world and document handle go together too.
    expect((await env.run(["open", `${site.a}/framed`])).json.ok).toBe(true);
    await waitFor(
      async () => JSON.stringify((await env.run(["frame"])).json).includes("/listened"),
      10_000,
      "the cross-origin frame",
    );
    const framed = await measure(["snapshot"]);
    console.log(
      `snapshot of a new document with a cross-origin frame: ${framed.trips} round trips (${framed.methods.join(" ")})`,
    );
    expect((framed.reply.elements as El[]).some((e) => e.n === "Chip")).toBe(true);
    expect(framed.trips).toBeLessThanOrEqual(BUDGET["snapshot of a new document with a cross-origin frame"] ?? 0);
    // A click on a target in a frame, cross-origin and same-origin (warm: the second click).
    const chip = String((framed.reply.elements as El[]).find((e) => e.n === "Chip")?.r);
    await measure(["click", chip]);
    const inFrame = await measure(["click", chip]);
    console.log(`click in a cross-origin frame: ${inFrame.trips} round trips (${inFrame.methods.join(" ")})`);
    expect(inFrame.trips).toBeLessThanOrEqual(BUDGET["click in a cross-origin frame"] ?? 0);
    expect((await env.run(["open", `${site.a}/framed-same`])).json.ok).toBe(true);
    const same = await measure(["snapshot"]);
    const sameChip = String((same.reply.elements as El[]).find((e) => e.n === "Chip")?.r);
    await measure(["click", sameChip]);
    const inSame = await measure(["click", sameChip]);
    console.log(`click in a same-origin frame: ${inSame.trips} round trips (${inSame.methods.join(" ")})`);
    expect(inSame.trips).toBeLessThanOrEqual(BUDGET["click in a same-origin frame"] ?? 0);
    // A click that navigates, and its observation of the new document (listener-only control included).
    expect((await env.run(["open", `${site.a}/go`])).json.ok).toBe(true);
    const go = await measure(["snapshot"]);
    const link = String((go.reply.elements as El[]).find((e) => e.n === "Go on")?.r);
    const navigated = await measure(["click", link]);
    console.log(`click that navigates: ${navigated.trips} round trips (${navigated.methods.join(" ")})`);
    expect(JSON.stringify(navigated.reply)).toContain("Chip");
    expect(navigated.trips).toBeLessThanOrEqual(BUDGET["click that navigates"] ?? 0);
    expect(navigated.installs).toBe(0);
    // A verified click that changes one control answers in at most 150 characters (lean replies).
    const box = rows.find(([n]) => n === "click checkbox")?.[1];
    console.log(`click checkbox reply (${JSON.stringify(box?.reply).length} chars): ${JSON.stringify(box?.reply)}`);
    expect(JSON.stringify(box?.reply).length).toBeLessThanOrEqual(150);
    const click = rows.find(([n]) => n === "click")?.[1];
    expect((click?.reply.evidence as { status?: string }).status).toBe("verified");
  });

  test("a navigation's look asks for our world and the page's document once the document is interactive, and reads the listeners after its load", async () => {
    rec.mark();
    const opening = env.run(["open", `${site.a}/slow-load`, "--snapshot"]);
    const before: Sent[] = [];
    // Interactive: the image still holds the load.
    await waitFor(
      () => {
        before.push(...rec.mark());
        return before.some((s) => s.method === "Page.createIsolatedWorld") &&
          before.some((s) => s.method === "Runtime.evaluate")
          ? true
          : undefined;
      },
      10_000,
      "our world and the page's document asked before the load",
    );
    expect(before.map((s) => s.method)).not.toContain("DOMDebugger.getEventListeners");
    expect(before.map((s) => s.method)).not.toContain("Page.getFrameTree");
    releaseImage();
    const r = await opening;
    expect(r.json.ok).toBe(true);
    const sentAfter = rec.mark();
    const after = sentAfter.map((s) => s.method);
    expect([...before.map((s) => s.method), ...after].filter((m) => m === "Page.createIsolatedWorld")).toHaveLength(1);
    // The handle from before the load served the listener list, sent at the load beside the frame tree (asked for
    // the handle only then, it would go out an answer later).
    const depth = (m: string) => sentAfter.find((s) => s.method === m)?.depth ?? Number.NaN;
    expect(after.filter((m) => m === "DOMDebugger.getEventListeners")).toHaveLength(1);
    expect(depth("DOMDebugger.getEventListeners")).toBe(depth("Page.getFrameTree"));
    // The load handler's listener is in the list the look read.
    expect((r.json.elements as El[]).some((e) => e.n === "Chip")).toBe(true);
  });
});
