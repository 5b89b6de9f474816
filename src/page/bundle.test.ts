import { afterAll, describe, expect, test } from "bun:test";
import type { Window } from "happy-dom";
import { PAGE_LIBRARY } from "./bundle.ts";
import { pageFind } from "./inspect/find.ts";
import { pageFrameElement } from "./inspect/compose.ts";
import { pageRead } from "./inspect/read.ts";
import { pageSearch } from "./inspect/search.ts";
import { snapshotMain as pageSnapshot } from "./snapshot/main.ts";
import { closePages, crossOrigin, doc, page } from "../../test/support/happy-dom.ts";
import type { PageWindow, SnapshotOptions, SnapshotResult } from "./types.ts";

// The page runs the bundle, not the modules: these tests prove the bundled text needs nothing
// from outside itself but built-ins and does what the modules do, on the same pages.

afterAll(closePages);

/** Built-ins the page code may use; nothing of the page (window, document) and nothing of ours. */
const BUILTINS = new Set([
  "Date",
  "Infinity",
  "Promise",
  "Int32Array",
  "Uint32Array",
  "Map",
  "Math",
  "Number",
  "Object",
  "Reflect",
  "Set",
  "String",
  "Symbol",
  "WeakMap",
  "WeakRef",
  "isFinite",
  "parseFloat",
  "parseInt",
  "undefined",
]);

type Fn = (win: PageWindow, arg: never) => unknown;
type Library = Record<string, Fn>;

/** Evaluates the bundle so that every name it does not declare itself lands in `free` (`with` sees them all). */
function load(free: Set<string>): Library {
  const note = (k: string | symbol): string | symbol => {
    if (typeof k === "string") free.add(k);
    return k;
  };
  const scope = new Proxy(Object.create(null) as object, {
    has: (_t, k) => typeof k === "string",
    get: (_t, k) => Reflect.get(globalThis, note(k)),
    set: (_t, k) => !free.add(`assignment to ${String(k)}`),
  });
  return new Function("scope", `with (scope) { return ${PAGE_LIBRARY}; }`)(scope) as Library;
}

const free = new Set<string>();
const lib = load(free);
const call = <T>(name: string, win: PageWindow, arg: unknown): T => {
  const fn = lib[name];
  if (!fn) throw new Error(`the bundle has no ${name}`);
  return fn(win, arg as never) as T;
};

interface Case {
  html: string;
  opts: SnapshotOptions;
  setup?: (w: Window) => void;
  /** Undoes `setup` so happy-dom can tear the window down normally. */
  teardown?: (w: Window) => void;
}

function rows(n: number, row: (i: number) => string): string {
  let s = "<ul>";
  for (let i = 0; i < n; i++) s += row(i);
  return s + "</ul>";
}

const FORM = `
  <form id="login"><label for="u">User</label><input id="u" value="bob"><input type="password" aria-label="Pass" value="x">
  <input type="submit"></form>
  <fieldset disabled><legend><button>In legend</button></legend><input aria-label="Off" required></fieldset>
  <select aria-label="Size"><option>S</option><option selected>M</option></select><textarea aria-label="Notes">hi</textarea>
  <label><input type="checkbox" style="display:none" checked><span>Hidden box</span></label>
  <input role="combobox" aria-label="Search" aria-expanded="true"><div role="listbox"><div role="option">A</div></div>
  <aside class="filters"><input type="checkbox" aria-label="R"><input type="checkbox" aria-label="G"><input type="radio" aria-label="B"></aside>
  <div role="dialog" aria-modal="true"><button>Accept</button></div><details><summary>More</summary><a href="/x">x</a></details>
  <div onclick="go()">Card <img alt="pic"></div><div contenteditable="true">Edit me</div><div style="cursor:pointer">Ptr</div>
  <span id="t1">Billing</span><input aria-labelledby="t1"><div role="slider" aria-valuenow="4" aria-label="Vol"></div>`;

const CASES: Case[] = [
  { html: FORM, opts: { layout: false } },
  { html: FORM, opts: {} },
  { html: FORM, opts: { layout: false, limit: 4, nameMax: 8, valueMax: 2 } },
  { html: rows(300, (i) => `<li><a href="/p/${i}">P ${i}</a><button>Add</button></li>`), opts: { layout: false } },
  { html: rows(300, (i) => `<li><button>B ${i}</button></li>`), opts: { layout: false, expand: [3], limit: 1000 } },
  {
    html: rows(200, (i) => `<li><div><button>B${i}</button></div></li>`),
    opts: { layout: false, workLimit: 60, maxBytes: 400 },
  },
  {
    html: `<div><div><div><div><div><button>Deep</button></div></div></div></div></div>`,
    opts: { layout: false, depthLimit: 4 },
  },
  {
    html: `<button>Top</button><x-card><button>Slotted</button></x-card><iframe title="Pay" src="https://pay.example/"></iframe>`,
    opts: { layout: false, refFloor: 40 },
    setup: (w) => {
      const host = w.document.querySelector("x-card");
      if (host)
        host.attachShadow({ mode: "open" }).innerHTML = `<label for="q">Query</label><input id="q"><slot></slot>`;
      const iframe = w.document.querySelector("iframe");
      if (iframe) Object.defineProperty(iframe, "contentDocument", { get: () => null });
    },
  },
  {
    html: `<button>Good</button><div id="evil"><button>Child</button></div>`,
    opts: { layout: false },
    setup: (w) => {
      const evil = w.document.getElementById("evil");
      if (evil)
        Object.defineProperty(evil, "localName", {
          configurable: true,
          get: () => {
            throw new Error("hostile");
          },
        });
    },
    teardown: (w) => {
      const evil = w.document.getElementById("evil");
      if (evil) Reflect.deleteProperty(evil, "localName");
    },
  },
];

function runCase(fn: (win: PageWindow, opts: SnapshotOptions) => SnapshotResult, c: Case): SnapshotResult {
  const { w, win } = page(c.html);
  c.setup?.(w);
  const r = fn(win as PageWindow, c.opts);
  c.teardown?.(w);
  r.stats.ms = 0;
  return r;
}

type InspectFn = "read" | "search" | "find";
const MODULE: Record<InspectFn, Fn> = { read: pageRead as Fn, search: pageSearch as Fn, find: pageFind as Fn };

const HTML = `<title>T</title><header>Head</header><main><h1>Big  news</h1><p>First <b>bold</b> kittens.</p>
  <x-card><span slot="t">Slotted kittens</span></x-card><pre>a\n  b</pre>
  <p>Before</p><iframe id="far" title="Pay"></iframe><p>After kittens</p>
  <form id="f"><input name="localName" placeholder="Q"><button disabled>Go</button></form>
  <span id="lbl">Label</span><div role="button" aria-labelledby="lbl">x</div><p hidden>Secret kittens</p></main>`;

function inspectPage(): Window {
  const { w } = doc(HTML);
  const host = w.document.querySelector("x-card");
  if (host) host.attachShadow({ mode: "open" }).innerHTML = `<h2><slot name="t"></slot></h2><p>Shadow kittens</p>`;
  // A cross-origin frame: a window, but no document we may read.
  const frame = w.document.getElementById("far");
  if (frame) crossOrigin(frame);
  return w;
}

const INSPECT_CASES: [InspectFn, Record<string, unknown>][] = [
  ["read", { layout: false }],
  ["read", { layout: false, limit: 20 }],
  ["read", { layout: false, whole: true }],
  ["read", { layout: false, selector: "x-card" }],
  ["read", { layout: false, selector: "div[" }],
  ["search", { layout: false, query: "kittens" }],
  ["search", { layout: false, query: "before after" }],
  ["search", { layout: false, query: "KITTENS", caseSensitive: true, limit: 1 }],
  ["search", { layout: false, query: "kittens", selector: "#none" }],
  ["search", { layout: false, query: "kitten", wholeWord: true }],
  ["find", { layout: false, selector: "input, button, [role], iframe, p" }],
  ["find", { layout: false, selector: "p", limit: 2, shadow: false }],
  ["find", { layout: false, selector: "p[" }],
  // With layout: boxes, frame offsets and placeholder geometry (happy-dom measures all as 0).
  ["search", { query: "kittens" }],
  ["find", { selector: "p, iframe" }],
];

describe("the page bundle", () => {
  test("is one minified script that uses nothing from outside itself but built-ins", async () => {
    expect(PAGE_LIBRARY).not.toContain("snapshotMain");
    expect(PAGE_LIBRARY).not.toContain("inspectDom");
    const page = inspectPage() as unknown as PageWindow;
    call("snapshot", page, { layout: false });
    call("read", page, { layout: false });
    const els = (sel: string) => (page as unknown as Window).document.querySelector(sel);
    const el = (name: string, sel: string | null, arg: unknown) =>
      (lib[name] as unknown as (w: unknown, e: unknown, a: unknown) => unknown)(page, sel ? els(sel) : null, arg);
    el("edit", "input", { op: "prepare", token: "t" });
    el("edit", null, { op: "read", token: "t", text: "x", mode: "replace" });
    el("scroll", null, { mode: "relative", direction: "down", amount: 1, unit: "pages" });
    el("scroll", null, { mode: "text", text: "kittens" });
    el("select", "form", { op: "list" });
    el("upload", "form", { op: "find" });
    el("drag", null, { op: "arm" });
    el("act", "input", { op: "probe" });
    el("act", "input", { op: "state" });
    call("quiet", page, { op: "install", id: 1 });
    call("quiet", page, { op: "poll", ids: [1] });
    await call("quiet", page, { op: "late", ids: [1], windowMs: 0 });
    call("quiet", page, { op: "install", id: 2 });
    await call("quiet", page, { op: "settle", ids: [2], quietFor: 0, frames: 0, max: 0, finish: true });
    for (const name of ["waitText", "waitSelector", "authField", "viewState", "hitAt"])
      call(name, page, { needle: "x", css: "p", x: 1, y: 1 });
    const rt = (
      lib.install as unknown as (w: unknown, k: symbol) => { run(c: unknown): Promise<{ results: unknown[] }> }
    )(page, Symbol("test"));
    expect(
      (
        await rt.run({
          steps: [
            { fn: "ref", ref: 1 },
            { fn: "act", ref: 1, arg: { op: "state" } },
          ],
        })
      ).results[0],
    ).toBeNull();
    expect([...free].filter((k) => !BUILTINS.has(k))).toEqual([]);
    expect(free.has("Math")).toBe(true);
  });

  test("its snapshot matches pageSnapshot", () => {
    for (const c of CASES)
      expect(runCase((win, opts) => call<SnapshotResult>("snapshot", win, opts), c)).toEqual(runCase(pageSnapshot, c));
  });

  test("its read, search and find match the modules; frame elements are found again by slot", () => {
    for (const [k, opts] of INSPECT_CASES) {
      expect(call(k, inspectPage() as unknown as PageWindow, opts)).toEqual(
        MODULE[k](inspectPage() as unknown as PageWindow, opts as never) as object,
      );
    }
    const w = inspectPage() as unknown as PageWindow;
    call("find", w, { layout: false, selector: "p" });
    expect(call<{ id?: string } | null>("frameElement", w, 0)?.id).toBe("far");
    expect(call("frameElement", w, 1)).toBeNull();
    expect(pageFrameElement(w, 0)).toBe(call("frameElement", w, 0));
  });
});
