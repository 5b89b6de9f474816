import { afterAll, describe, expect, test } from "bun:test";
import { Window } from "happy-dom";
import { bundled } from "../../../test/support/page-bundle.ts";

type Quiet = (win: unknown, arg: Record<string, unknown>) => unknown;
type Poll = { quietFor: number; mutations: number } | null;
const quiet = bundled<Quiet>("quiet");
// happy-dom delivers mutation records in a microtask, as browsers do.
const tick = () => new Promise((r) => setTimeout(r, 0));

const opened: Window[] = [];
afterAll(async () => {
  for (const w of opened) await w.happyDOM.close();
});

/** The settle's waits take tasks of a MessageChannel where the window has one (Chromium), timers where not (happy-dom). */
const channels: [string, boolean][] = [
  ["timer tasks", false],
  ["MessageChannel tasks", true],
];

function windowWith(channel: boolean): Window {
  const w = new Window({ url: "https://quiet.example/" });
  opened.push(w);
  if (channel) Object.defineProperty(w, "MessageChannel", { value: MessageChannel, configurable: true });
  return w;
}

describe("page quiet watcher", () => {
  test("counts mutations from install; quiet is timed from the first poll, not from install", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    expect(quiet(w, { op: "install", id: 1 })).toBe(true);
    await new Promise((r) => setTimeout(r, 40));
    const first = quiet(w, { op: "poll", ids: [1] }) as Poll;
    // Quiet since install, but a long dispatch must not use up the quiet period.
    expect(first?.quietFor).toBeLessThan(10);
    w.document.body.appendChild(w.document.createElement("div"));
    await tick();
    const second = quiet(w, { op: "poll", ids: [1] }) as Poll;
    expect(second?.mutations).toBe(1);
    expect(second?.quietFor).toBeLessThan(10);
    await new Promise((r) => setTimeout(r, 30));
    const third = quiet(w, { op: "poll", ids: [1], finish: true }) as Poll;
    expect(third?.quietFor).toBeGreaterThanOrEqual(25);
    expect(quiet(w, { op: "poll", ids: [1] })).toBeNull();
  });

  test("an unknown id yields null; several ids count the earliest observer", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    expect(quiet(w, { op: "poll", ids: [9] })).toBeNull();
    quiet(w, { op: "install", id: 1 });
    w.document.body.appendChild(w.document.createElement("p"));
    await tick();
    quiet(w, { op: "install", id: 2 });
    w.document.body.appendChild(w.document.createElement("p"));
    await tick();
    const r = quiet(w, { op: "poll", ids: [1, 2], finish: true }) as Poll;
    expect(r?.mutations).toBe(2);
    expect(quiet(w, { op: "poll", ids: [1, 2] })).toBeNull();
  });

  test("settle: changes made inside the dispatch settle a frame and 20 ms later; changes that keep coming after it wait for quiet", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    quiet(w, { op: "install", id: 1 });
    // The action's handler changed the page synchronously, before the settle began.
    w.document.body.appendChild(w.document.createElement("div"));
    await tick();
    // A long limit: these settle by their rules, never by running out of time.
    const settle = { op: "settle", ids: [1], quietFor: 50, syncQuietFor: 20, frames: 3, max: 60_000 };
    const t0 = Date.now();
    const sync = (await quiet(w, settle)) as Poll & { settled: boolean; capped?: boolean };
    expect(sync).toMatchObject({ settled: true, mutations: 1 });
    expect(sync.capped).toBeUndefined();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(19);
    // A page that changes on its own every 10 ms for 150 ms (a timer the action started): settled only after it stopped and stayed quiet.
    let n = 0;
    const timer = w.setInterval(() => {
      w.document.body.appendChild(w.document.createElement("span"));
      if (++n >= 15) w.clearInterval(timer);
    }, 10);
    // Quiet must last 300 ms here, far longer than a step: a stalled machine cannot fake it between steps
    // (nor end it by the sync floor before the first step ran late).
    const busy = (await quiet(w, { ...settle, quietFor: 300, syncQuietFor: 300 })) as Poll & {
      settled: boolean;
      capped?: boolean;
    };
    expect(busy.settled).toBe(true);
    expect(busy.capped).toBeUndefined();
    expect(n).toBe(15);
    expect(busy.quietFor).toBeGreaterThanOrEqual(300);
    // A rule that cannot be met in time (here a floor longer than the limit) ends at the limit: observed as it is.
    const capped = (await quiet(w, { ...settle, syncQuietFor: 60_000, max: 100, finish: true })) as Poll & {
      settled: boolean;
      capped?: boolean;
    };
    expect(capped).toMatchObject({ settled: true, capped: true });
    expect(quiet(w, { op: "poll", ids: [1] })).toBeNull();
  });

  test("settle: the sync floor runs from the action's input event, not from when the settle call arrives", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    const settle = { op: "settle", ids: [1], quietFor: 50, syncQuietFor: 60, frames: 3, max: 60_000, finish: true };
    // An input event from before the watcher belongs to an earlier action: the floor runs from the settle.
    w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
    quiet(w, { op: "install", id: 1 });
    await new Promise((r) => setTimeout(r, 40));
    let t0 = Date.now();
    await quiet(w, settle);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(58);
    // An event the page dispatches itself is no input of the action's either.
    quiet(w, { op: "install", id: 1 });
    const synthetic = new w.MouseEvent("click", { bubbles: true });
    Object.defineProperty(synthetic, "isTrusted", { value: false });
    w.document.body.dispatchEvent(synthetic);
    await new Promise((r) => setTimeout(r, 40));
    t0 = Date.now();
    await quiet(w, settle);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(58);
    // The click is taken (its handler changes the page) 40 ms before the settle call arrives.
    quiet(w, { op: "install", id: 1 });
    const clicked = Date.now();
    w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
    w.document.body.appendChild(w.document.createElement("div"));
    await new Promise((r) => setTimeout(r, 40));
    t0 = Date.now();
    const r = (await quiet(w, settle)) as Poll & { settled: boolean; capped?: boolean };
    expect(r).toMatchObject({ settled: true, mutations: 1 });
    expect(Date.now() - clicked).toBeGreaterThanOrEqual(58);
    // Well before the 60 ms a floor counted from the settle's start would have taken.
    expect(Date.now() - t0).toBeLessThan(55);
  });

  test.each(channels)(
    "settle: the sync floor lasts its whole time on the high-resolution clock, however coarse Date.now() is (%s)",
    async (_name, withChannel) => {
      const w = windowWith(withChannel);
      const hr = w as unknown as { performance: { now(): number } };
      // Date.now() counts whole ms, so a floor timed by it could end up to 1 ms early; a wall
      // clock that ticks in 5 ms steps makes that certain rather than occasional.
      const wall = Date.now;
      Date.now = () => Math.floor(wall() / 5) * 5;
      const short: number[] = [];
      try {
        for (let i = 0; i < 6; i++) {
          quiet(w, { op: "install", id: 1 });
          const before = hr.performance.now();
          w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
          w.document.body.appendChild(w.document.createElement("div"));
          await tick();
          const r = (await quiet(w, {
            op: "settle",
            ids: [1],
            quietFor: 50,
            syncQuietFor: 20,
            frames: 3,
            max: 60_000,
            finish: true,
          })) as Poll & { settled: boolean };
          expect(r).toMatchObject({ settled: true, mutations: 1 });
          const took = hr.performance.now() - before;
          if (took < 20) short.push(took);
        }
      } finally {
        Date.now = wall;
      }
      expect(short).toEqual([]);
    },
  );

  test("late: ends at the first change, or after the window when nothing comes", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    quiet(w, { op: "install", id: 1 });
    w.setTimeout(() => w.document.body.appendChild(w.document.createElement("ul")), 30);
    // A minute-long window: only the change can end it within the test's time.
    expect(await quiet(w, { op: "late", ids: [1], windowMs: 60_000, finish: true })).toEqual({ changed: true });
    quiet(w, { op: "install", id: 2 });
    expect(await quiet(w, { op: "late", ids: [2], windowMs: 60, linger: 60_000 })).toEqual({ changed: false });
    // Nothing changed in the window, but the watcher stays: a request the page started may still bring the list.
    w.document.body.appendChild(w.document.createElement("li"));
    await tick();
    expect((quiet(w, { op: "poll", ids: [2] }) as Poll)?.mutations).toBe(1);
  });

  test("a new watcher ends the ones that only linger, and replaces one under a reused id", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    const held = () =>
      Object.keys(
        (w as unknown as Record<symbol, Record<number, unknown>>)[Symbol.for("browser-pilot.quiet.v4")] ?? {},
      ).map(Number);
    quiet(w, { op: "install", id: 1 });
    await quiet(w, { op: "settle", ids: [1], quietFor: 50, syncQuietFor: 0, frames: 3, max: 60_000, linger: 60_000 });
    quiet(w, { op: "install", id: 2 });
    // id 1 only lingered: the next action's watcher ended it.
    expect(held()).toEqual([2]);
    // An id installed again replaces its old watcher instead of leaving it connected.
    quiet(w, { op: "install", id: 2 });
    expect(held()).toEqual([2]);
    w.document.body.appendChild(w.document.createElement("em"));
    await tick();
    expect((quiet(w, { op: "poll", ids: [2] }) as Poll)?.mutations).toBe(1);
  });

  test("settle with linger: the watcher stays for a later settle, then disconnects on its own", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    quiet(w, { op: "install", id: 1 });
    const r = (await quiet(w, {
      op: "settle",
      ids: [1],
      quietFor: 50,
      syncQuietFor: 0,
      frames: 3,
      max: 1000,
      linger: 40,
    })) as { settled: boolean };
    expect(r.settled).toBe(true);
    // Still there right after: a settle after the network can count a response's changes.
    w.document.body.appendChild(w.document.createElement("b"));
    await tick();
    expect((quiet(w, { op: "poll", ids: [1] }) as Poll)?.mutations).toBe(1);
    // A poll cancels the pending linger; a new settle starts a new one, which then ends it.
    await quiet(w, { op: "settle", ids: [1], quietFor: 50, syncQuietFor: 0, frames: 3, max: 1000, linger: 40 });
    // Looked at without a call (a poll would cancel the linger).
    const held = () =>
      (w as unknown as Record<symbol, Record<number, unknown>>)[Symbol.for("browser-pilot.quiet.v4")]?.[1];
    for (let i = 0; i < 250 && held() !== undefined; i++) await new Promise((res) => setTimeout(res, 20));
    expect(held()).toBeUndefined();
    expect(quiet(w, { op: "poll", ids: [1] })).toBeNull();
  });

  test.each(channels)(
    "settle for typing (no time floor): a frame after the change is enough, and one that already ran counts (%s)",
    async (_name, withChannel) => {
      const w = windowWith(withChannel);
      quiet(w, { op: "install", id: 1 });
      w.document.body.appendChild(w.document.createElement("div"));
      await tick();
      // A frame runs after the change, before the settle starts.
      await new Promise((r) => w.requestAnimationFrame(() => r(undefined)));
      const r = (await quiet(w, {
        op: "settle",
        ids: [1],
        quietFor: 50,
        syncQuietFor: 0,
        frames: 3,
        max: 60_000,
      })) as Poll & { settled: boolean; capped?: boolean };
      expect(r).toMatchObject({ settled: true, mutations: 1 });
      expect(r.capped).toBeUndefined();
      // A change the frame's own callbacks make is seen before settling: the page moved on its own.
      quiet(w, { op: "install", id: 2 });
      w.document.body.appendChild(w.document.createElement("p"));
      let steps = 0;
      const step = () => {
        w.document.body.appendChild(w.document.createElement("i"));
        if (++steps < 5) w.requestAnimationFrame(step);
      };
      w.requestAnimationFrame(step);
      const moving = (await quiet(w, {
        op: "settle",
        ids: [2],
        quietFor: 50,
        syncQuietFor: 0,
        frames: 3,
        max: 60_000,
        finish: true,
      })) as Poll & { settled: boolean };
      expect(moving.settled).toBe(true);
      expect(steps).toBe(5);
      expect(moving.quietFor).toBeGreaterThanOrEqual(50);
    },
  );

  test.each(channels)(
    "settle for typing: a frame after the last input, even when an earlier change had its frame and the last key changes only the value (%s)",
    async (_name, withChannel) => {
      const w = windowWith(withChannel);
      const body = w.document.body;
      // The page follows the field in its next frame.
      body.addEventListener("input", () =>
        w.requestAnimationFrame(() => body.appendChild(w.document.createElement("output"))),
      );
      quiet(w, { op: "install", id: 1 });
      // The action's first key changed the page, and frames ran since.
      body.appendChild(w.document.createElement("div"));
      await tick();
      await new Promise((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(() => r(undefined))));
      // Its last key changes only the value; the page's preview comes in the next frame.
      body.dispatchEvent(new w.KeyboardEvent("keydown", { bubbles: true }));
      body.dispatchEvent(new w.Event("input", { bubbles: true }));
      body.dispatchEvent(new w.KeyboardEvent("keyup", { bubbles: true }));
      const r = (await quiet(w, {
        op: "settle",
        ids: [1],
        quietFor: 50,
        syncQuietFor: 0,
        frames: 3,
        max: 60_000,
        finish: true,
      })) as Poll & { settled: boolean };
      expect(r).toMatchObject({ settled: true, mutations: 2 });
      // Text inserted without key events fires only input events: they count the same.
      quiet(w, { op: "install", id: 2 });
      body.appendChild(w.document.createElement("div"));
      await tick();
      await new Promise((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(() => r(undefined))));
      body.dispatchEvent(new w.Event("input", { bubbles: true }));
      const inserted = (await quiet(w, {
        op: "settle",
        ids: [2],
        quietFor: 50,
        syncQuietFor: 0,
        frames: 3,
        max: 60_000,
        finish: true,
      })) as Poll & { settled: boolean };
      expect(inserted).toMatchObject({ settled: true, mutations: 2 });
    },
  );

  test("a clock an older build left in the document (another shape, its own key) does not end the floor early", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    const hr = w as unknown as { performance: { now(): number } };
    // As a build before the high-resolution floor armed it: Date.now() only, kept by its own listener.
    const old = { at: 0 };
    Reflect.set(w, Symbol.for("browser-pilot.quiet.input.v1"), old);
    w.addEventListener("click", () => (old.at = Date.now()), { capture: true });
    quiet(w, { op: "install", id: 1 });
    const before = hr.performance.now();
    w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
    w.document.body.appendChild(w.document.createElement("div"));
    await tick();
    const r = (await quiet(w, {
      op: "settle",
      ids: [1],
      quietFor: 50,
      syncQuietFor: 20,
      frames: 3,
      max: 60_000,
      finish: true,
    })) as Poll & { settled: boolean };
    expect(r).toMatchObject({ settled: true, mutations: 1 });
    expect(hr.performance.now() - before).toBeGreaterThanOrEqual(20);
  });

  test("an input event in the same Date.now() ms as the install, just before it, belongs to an earlier action", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    const hr = w as unknown as { performance: { now(): number } };
    // Armed earlier (a snapshot), as a person's mouse move finds it.
    quiet(w, { op: "install", id: 1 });
    quiet(w, { op: "poll", ids: [1], finish: true });
    const wall = Date.now;
    const frozen = wall();
    Date.now = () => frozen;
    try {
      w.document.body.dispatchEvent(new w.MouseEvent("mousemove", { bubbles: true }));
      quiet(w, { op: "install", id: 2 });
    } finally {
      Date.now = wall;
    }
    // The action's dispatch saw no input of its own (a click its page consumed elsewhere): the floor runs from the settle.
    await new Promise((r) => setTimeout(r, 30));
    w.document.body.appendChild(w.document.createElement("div"));
    await tick();
    const t0 = hr.performance.now();
    await quiet(w, { op: "settle", ids: [2], quietFor: 50, syncQuietFor: 20, frames: 3, max: 60_000, finish: true });
    expect(hr.performance.now() - t0).toBeGreaterThanOrEqual(20);
  });

  test("the input clock's listeners come back at the next install after the window lost them (document.open() erases them)", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    // What our world added to the window, to erase it as a browser's document.open() does (happy-dom's keeps the window's).
    type Added = Parameters<typeof w.addEventListener>;
    const added: Added[] = [];
    const add = w.addEventListener.bind(w);
    w.addEventListener = (...a: Added) => {
      added.push(a);
      add(...a);
    };
    quiet(w, { op: "install", id: 1 });
    quiet(w, { op: "poll", ids: [1], finish: true });
    for (const [type, fn] of added) w.removeEventListener(type, fn);
    quiet(w, { op: "install", id: 2 });
    // The click is taken 40 ms before the settle call: a floor of 60 ms from it ends well before 60 ms from the settle.
    w.document.body.dispatchEvent(new w.MouseEvent("click", { bubbles: true }));
    w.document.body.appendChild(w.document.createElement("div"));
    await new Promise((r) => setTimeout(r, 40));
    const t0 = Date.now();
    await quiet(w, { op: "settle", ids: [2], quietFor: 50, syncQuietFor: 60, frames: 3, max: 60_000, finish: true });
    expect(Date.now() - t0).toBeLessThan(55);
  });
});
