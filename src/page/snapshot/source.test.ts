import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Window } from "happy-dom";
import { pageSnapshot, SNAPSHOT_HELPERS, SNAPSHOT_SOURCE } from "../snapshot-script.ts";
import type { PageWindow, SnapshotOptions, SnapshotResult } from "../types.ts";
import { closePages, page } from "./test-fixture.ts";

// The injected source is stitched from the helpers' own text, so these tests prove that the
// stitched text is complete and needs nothing from outside, also after minification.

afterAll(closePages);

type Snapshot = typeof pageSnapshot;

/** Built-ins the helpers may use; nothing of the page (window, document) and nothing of ours. */
const BUILTINS = new Set([
  "Date", "Infinity", "Map", "Math", "Object", "Reflect", "Set", "String", "Symbol", "WeakMap", "WeakRef",
  "parseFloat", "parseInt", "undefined",
]);

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
  { html: rows(200, (i) => `<li><div><button>B${i}</button></div></li>`), opts: { layout: false, workLimit: 60, maxBytes: 400 } },
  { html: `<div><div><div><div><div><button>Deep</button></div></div></div></div></div>`, opts: { layout: false, depthLimit: 4 } },
  {
    html: `<button>Top</button><x-card><button>Slotted</button></x-card><iframe title="Pay" src="https://pay.example/"></iframe>`,
    opts: { layout: false, refFloor: 40 },
    setup: (w) => {
      const host = w.document.querySelector("x-card");
      if (host) host.attachShadow({ mode: "open" }).innerHTML = `<label for="q">Query</label><input id="q"><slot></slot>`;
      const iframe = w.document.querySelector("iframe");
      if (iframe) Object.defineProperty(iframe, "contentDocument", { get: () => null });
    },
  },
  {
    html: `<button>Good</button><div id="evil"><button>Child</button></div>`,
    opts: { layout: false },
    setup: (w) => {
      const evil = w.document.getElementById("evil");
      if (evil) Object.defineProperty(evil, "localName", { configurable: true, get: () => { throw new Error("hostile"); } });
    },
    teardown: (w) => {
      const evil = w.document.getElementById("evil");
      if (evil) Reflect.deleteProperty(evil, "localName");
    },
  },
];

function runCase(fn: Snapshot, c: Case): SnapshotResult {
  const { w, win } = page(c.html);
  c.setup?.(w);
  const r = fn(win as PageWindow, c.opts);
  c.teardown?.(w);
  r.stats.ms = 0;
  return r;
}

function sameAsModule(fn: Snapshot): void {
  for (const c of CASES) expect(runCase(fn, c)).toEqual(runCase(pageSnapshot, c));
}

describe("the injected source", () => {
  test("lists every function of the snapshot helpers, and nothing else lives at module level", () => {
    const dir = import.meta.dir;
    const declared: string[] = [];
    for (const file of readdirSync(dir)) {
      if (!file.endsWith(".ts") || file.endsWith(".test.ts") || file === "test-fixture.ts") continue;
      const text = readFileSync(join(dir, file), "utf8");
      for (const m of text.matchAll(/^(export\s+)?(?:declare\s+)?(async\s+function|function\*?|const|let|var|class|enum)\s+(\w+)/gm)) {
        expect(`${file}: ${m[2]} ${m[3]}${m[1] ? "" : " (not exported)"}`).toBe(`${file}: function ${m[3]}`);
        declared.push(m[3] ?? "");
      }
    }
    const listed = SNAPSHOT_HELPERS.map((f) => f.name);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual(declared.sort());
    for (const f of SNAPSHOT_HELPERS) expect(String(f).startsWith(`function ${f.name}(`)).toBe(true);
  });

  test("uses no identifier from outside itself but built-ins, and matches pageSnapshot", () => {
    const free = new Set<string>();
    // `with` sees every name the stitched text does not declare itself.
    const scope = new Proxy(Object.create(null) as object, {
      has: (_t, k) => typeof k === "string",
      get: (_t, k) => {
        if (typeof k !== "string") return undefined;
        free.add(k);
        return Reflect.get(globalThis, k);
      },
      set: (_t, k) => {
        free.add(`assignment to ${String(k)}`);
        return false;
      },
    });
    const fn = new Function("scope", `with (scope) { return ${SNAPSHOT_SOURCE}; }`)(scope) as Snapshot;
    sameAsModule(fn);
    expect([...free].filter((k) => !BUILTINS.has(k))).toEqual([]);
    expect(free.has("Math")).toBe(true);
  });

  test("still runs from its text alone after the bundler's minifier renames the helpers", async () => {
    const out = mkdtempSync(join(tmpdir(), "bp-snapshot-min-"));
    try {
      const built = await Bun.build({
        entrypoints: [join(import.meta.dir, "../snapshot-script.ts")],
        outdir: out,
        minify: true,
        splitting: true,
        format: "esm",
        target: "bun",
      });
      expect(built.success).toBe(true);
      const entry = built.outputs.find((o) => o.kind === "entry-point");
      if (!entry) throw new Error("no entry output");
      const mod = (await import(entry.path)) as { SNAPSHOT_SOURCE: string };
      expect(mod.SNAPSHOT_SOURCE).not.toContain("snapshotMain");
      sameAsModule(new Function(`return ${mod.SNAPSHOT_SOURCE};`)() as Snapshot);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
