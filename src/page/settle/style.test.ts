import { afterAll, describe, expect, test } from "bun:test";
import { Window } from "happy-dom";
import type { ActWindow } from "../act/dom.ts";
import { bundled } from "../../../test/support/page-bundle.ts";
import { fadeStart, opacityRose, unreadChange } from "./style.ts";

type Quiet = (win: unknown, arg: Record<string, unknown>) => unknown;
type Poll = { mutations: number } | null;
const quiet = bundled<Quiet>("quiet");
const tick = () => new Promise((r) => setTimeout(r, 0));

const opened: Window[] = [];
afterAll(async () => {
  for (const w of opened) await w.happyDOM.close();
});
function page(): Window {
  const w = new Window({ url: "https://style.example/" });
  opened.push(w);
  return w;
}

describe("style rewrites the snapshot does not read", () => {
  test("an opacity rising above zero, colours and shadows, the same text: unread", () => {
    const win = page() as unknown as ActWindow;
    for (const [a, b] of [
      ["display: block; opacity: 0.2", "display: block; opacity: 0.75"],
      ["opacity: .5; color: red", "opacity: 1; color: blue"],
      ["background-color: #fff; box-shadow: 0 0 2px red", "background-color: #000; box-shadow: none"],
      ["left: 3px", "left: 3px"],
    ]) {
      expect({ a, b, unread: unreadChange(win, a as string, b as string) }).toEqual({ a, b, unread: true });
    }
  });

  test("display, position, size, a transform, an opacity leaving zero, falling or (un)set: read", () => {
    const win = page() as unknown as ActWindow;
    for (const [a, b] of [
      ["display: none", "display: block"],
      ["display: block; opacity: 0", "display: block; opacity: 0.05"],
      ["opacity: 0.4", "opacity: 0"],
      ["display: block; opacity: 0.75", "display: block; opacity: 0.7"],
      ["opacity: 0.4", ""],
      ["color: red", "color: red; opacity: 0.5"],
      ["left: 3px", "left: 4px"],
      ["height: 10px; opacity: 0.5", "height: 12px; opacity: 0.6"],
      ["transform: translateX(-10px)", "transform: none"],
      ["visibility: hidden; opacity: 0.5", "visibility: visible; opacity: 0.5"],
    ]) {
      expect({ a, b, unread: unreadChange(win, a as string, b as string) }).toEqual({ a, b, unread: false });
    }
  });

  test("a fade-in's first visible frame and its rises, told apart from other rewrites", () => {
    const win = page() as unknown as ActWindow;
    const cases: [string, string, boolean, boolean][] = [
      // before, after, a fade's first visible frame, an opacity that rose
      ["display: block; opacity: 0", "display: block; opacity: 0.05", true, true],
      ["opacity: 0; color: red", "opacity: 0.1; color: blue", true, true],
      ["display: block; opacity: 0.2", "display: block; opacity: 0.5", false, true],
      ["opacity: 0.5", "opacity: 0.4", false, false],
      ["display: none; opacity: 0", "display: block; opacity: 0.1", false, true],
      ["opacity: 0; height: 0px", "opacity: 0.1; height: 2px", false, true],
      ["", "opacity: 1", false, false],
    ];
    for (const [a, b, start, rose] of cases) {
      expect({ a, b, start: fadeStart(win, a, b), rose: opacityRose(win, a, b) }).toEqual({ a, b, start, rose });
    }
  });

  test("the quiet watcher counts a fade's first frame and whatever it reveals, not the frames after", async () => {
    const w = page();
    const doc = w.document;
    const panel = doc.createElement("div");
    panel.setAttribute("style", "display: none");
    doc.body.appendChild(panel);
    await tick();
    quiet(w, { op: "install", id: 1 });
    // jQuery's fadeIn: shown at opacity 0, then a rewrite per frame.
    panel.setAttribute("style", "display: block; opacity: 0");
    await tick();
    panel.style.opacity = "0.1";
    await tick();
    const shown = (quiet(w, { op: "poll", ids: [1] }) as Poll)?.mutations ?? -1;
    expect(shown).toBe(2);
    for (const o of ["0.3", "0.6", "0.9", "1"]) {
      panel.style.opacity = o;
      await tick();
    }
    // A fade-out: every frame counts, as it heads for zero.
    for (const o of ["0.7", "0.4", "0"]) {
      panel.style.opacity = o;
      await tick();
    }
    expect((quiet(w, { op: "poll", ids: [1], finish: true }) as Poll)?.mutations).toBe(shown + 3);
  });

  test("a node's first rewrite since the watcher armed counts, even one that changes nothing read", async () => {
    const w = page();
    const box = w.document.createElement("div");
    box.setAttribute("style", "opacity: 1");
    w.document.body.appendChild(box);
    await tick();
    quiet(w, { op: "install", id: 1 });
    // A tween's first frame that lands on (or over) the value it starts from; its next frames fall.
    box.setAttribute("style", "opacity: 1");
    await tick();
    expect((quiet(w, { op: "poll", ids: [1] }) as Poll)?.mutations).toBe(1);
    box.style.opacity = "0.8";
    await tick();
    expect((quiet(w, { op: "poll", ids: [1], finish: true }) as Poll)?.mutations).toBe(2);
  });

  /** A box mid-fade when watcher 2 arms: watcher 1 saw its last frame `gapMs` before. */
  async function armedMidFade(gapMs: number) {
    const w = page();
    const box = w.document.createElement("div");
    box.setAttribute("style", "display: block; opacity: 0.2");
    w.document.body.appendChild(box);
    await tick();
    quiet(w, { op: "install", id: 1 });
    box.style.opacity = "0.3";
    await tick();
    quiet(w, { op: "poll", ids: [1], finish: true });
    if (gapMs > 0) await Bun.sleep(gapMs);
    quiet(w, { op: "install", id: 2 });
    return { w, box };
  }

  test("a fade under way when the watcher armed: its next frame is judged by what it changes", async () => {
    const { w, box } = await armedMidFade(0);
    box.style.opacity = "0.4";
    await tick();
    expect((quiet(w, { op: "poll", ids: [2] }) as Poll)?.mutations).toBe(0);
    // The fade turned back toward zero: that counts.
    box.style.opacity = "0.35";
    await tick();
    expect((quiet(w, { op: "poll", ids: [2], finish: true }) as Poll)?.mutations).toBe(1);
  });

  test("a node last rewritten longer before the arm than a frame's gap: its first rewrite counts", async () => {
    const { w, box } = await armedMidFade(150);
    box.style.opacity = "0.4";
    await tick();
    expect((quiet(w, { op: "poll", ids: [2], finish: true }) as Poll)?.mutations).toBe(1);
  });
});
