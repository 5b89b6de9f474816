import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Window } from "happy-dom";
import { FIND_SOURCE, pageFind } from "../find-script.ts";
import { pageRead, READ_SOURCE } from "../read-script.ts";
import { pageSearch, SEARCH_SOURCE } from "../search-script.ts";
import type { PageWindow } from "../types.ts";
import { FRAME_ELEMENT_SOURCE, INSPECT_HELPERS, pageFrameElement } from "./compose.ts";

// The inspect scripts are stitched from their entry function and the shared helpers' own text,
// so these tests prove the stitched text is complete and needs nothing from outside, also after
// the bundler's minifier renamed the helpers.

const opened: Window[] = [];
afterAll(async () => {
  for (const w of opened.splice(0)) await w.happyDOM.close();
});

/** Built-ins the scripts may use; nothing of the page (window, document) and nothing of ours. */
const BUILTINS = new Set(["Int32Array", "Map", "Math", "Number", "Object", "Reflect", "Symbol", "isFinite", "parseFloat", "undefined"]);

type Run = (win: PageWindow, opts: Record<string, unknown>) => unknown;
interface Sources { READ_SOURCE: string; SEARCH_SOURCE: string; FIND_SOURCE: string; FRAME_ELEMENT_SOURCE: string }
const MODULE: Record<keyof Sources, Run> = {
  READ_SOURCE: pageRead as unknown as Run,
  SEARCH_SOURCE: pageSearch as unknown as Run,
  FIND_SOURCE: pageFind as unknown as Run,
  FRAME_ELEMENT_SOURCE: ((win: PageWindow, slot: number) => pageFrameElement(win, slot)) as unknown as Run,
};

const HTML = `<title>T</title><header>Head</header><main><h1>Big  news</h1><p>First <b>bold</b> kittens.</p>
  <x-card><span slot="t">Slotted kittens</span></x-card><pre>a\n  b</pre>
  <p>Before</p><iframe id="far" title="Pay"></iframe><p>After kittens</p>
  <form id="f"><input name="localName" placeholder="Q"><button disabled>Go</button></form>
  <span id="lbl">Label</span><div role="button" aria-labelledby="lbl">x</div><p hidden>Secret kittens</p></main>`;

function page(): Window {
  const w = new Window({ url: "https://shop.example/" });
  opened.push(w);
  w.document.write(HTML);
  const host = w.document.querySelector("x-card");
  if (host) host.attachShadow({ mode: "open" }).innerHTML = `<h2><slot name="t"></slot></h2><p>Shadow kittens</p>`;
  // A cross-origin frame: a window, but no document we may read.
  const frame = w.document.getElementById("far");
  if (frame) {
    Object.defineProperty(frame, "contentDocument", { configurable: true, get: () => null });
    Object.defineProperty(frame, "contentWindow", { configurable: true, get: () => ({}) });
  }
  return w;
}

const CASES: [keyof Sources, Record<string, unknown>][] = [
  ["READ_SOURCE", { layout: false }],
  ["READ_SOURCE", { layout: false, limit: 20 }],
  ["READ_SOURCE", { layout: false, whole: true }],
  ["READ_SOURCE", { layout: false, selector: "x-card" }],
  ["READ_SOURCE", { layout: false, selector: "div[" }],
  ["SEARCH_SOURCE", { layout: false, query: "kittens" }],
  ["SEARCH_SOURCE", { layout: false, query: "before after" }],
  ["SEARCH_SOURCE", { layout: false, query: "KITTENS", caseSensitive: true, limit: 1 }],
  ["SEARCH_SOURCE", { layout: false, query: "kittens", selector: "#none" }],
  ["SEARCH_SOURCE", { layout: false, query: "kitten", wholeWord: true }],
  ["FIND_SOURCE", { layout: false, selector: "input, button, [role], iframe, p" }],
  ["FIND_SOURCE", { layout: false, selector: "p", limit: 2, shadow: false }],
  ["FIND_SOURCE", { layout: false, selector: "p[" }],
  // With layout: boxes, frame offsets and placeholder geometry (happy-dom measures all as 0).
  ["SEARCH_SOURCE", { query: "kittens" }],
  ["FIND_SOURCE", { selector: "p, iframe" }],
];

/** Runs every case through `pick` and through the module functions; both must agree. */
function sameAsModule(pick: (k: keyof Sources) => Run): void {
  for (const [k, opts] of CASES) {
    const a = pick(k)(page() as unknown as PageWindow, opts);
    const b = MODULE[k](page() as unknown as PageWindow, opts);
    expect(a).toEqual(b as object);
  }
  const w = page() as unknown as PageWindow;
  pageFind(w, { layout: false, selector: "p" });
  const el = pick("FRAME_ELEMENT_SOURCE")(w, 0 as unknown as Record<string, unknown>);
  expect((el as { id?: string } | null)?.id).toBe("far");
  expect(pick("FRAME_ELEMENT_SOURCE")(w, 1 as unknown as Record<string, unknown>)).toBeNull();
}

/** Evaluates `source` so that every name it does not declare itself lands in `free` (`with` sees them all). */
function recording(source: string, free: Set<string>): Run {
  const note = (k: string | symbol): string | symbol => (typeof k === "string" && free.add(k), k);
  const scope = new Proxy(Object.create(null) as object, {
    has: (_t, k) => typeof k === "string",
    get: (_t, k) => Reflect.get(globalThis, note(k)),
    set: (_t, k) => !free.add(`assignment to ${String(k)}`),
  });
  return new Function("scope", `with (scope) { return ${source}; }`)(scope) as Run;
}

describe("the injected inspect sources", () => {
  test("list every function of the shared helpers, and nothing else lives at module level", () => {
    // Every file here is either stitched into the sources or not injected at all (compose.ts
    // builds the sources); a new file must say which.
    const injected = ["dom.ts", "tree.ts"];
    const files = readdirSync(import.meta.dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    expect(files.sort()).toEqual([...injected, "compose.ts"].sort());
    const top = /^(export\s+)?(?:declare\s+)?(async\s+function|function\*?|const|let|var|class|enum)\s+(\w+)/gm;
    const declared = injected.flatMap((file) =>
      [...readFileSync(join(import.meta.dir, file), "utf8").matchAll(top)].map((m) => {
        expect(`${file}: ${m[2]} ${m[3]}${m[1] ? "" : " (not exported)"}`).toBe(`${file}: function ${m[3]}`);
        return m[3] ?? "";
      }),
    );
    // Listed once each, as plain declarations that keep their (possibly minified) name.
    expect(new Set(declared).size).toBe(declared.length);
    const listed = INSPECT_HELPERS.map((f) => (String(f).startsWith(`function ${f.name}(`) ? f.name : `not a plain declaration: ${f.name}`));
    expect(listed.sort()).toEqual(declared.sort());
  });

  test("use no identifier from outside themselves but built-ins, and match the module functions", () => {
    const free = new Set<string>();
    const sources: Sources = { READ_SOURCE, SEARCH_SOURCE, FIND_SOURCE, FRAME_ELEMENT_SOURCE };
    sameAsModule((k) => recording(sources[k], free));
    expect([...free].filter((k) => !BUILTINS.has(k))).toEqual([]);
    expect(free.has("Math")).toBe(true);
  });

  test("still run from their text alone after the bundler's minifier renames the helpers", async () => {
    const out = mkdtempSync(join(tmpdir(), "bp-inspect-min-"));
    try {
      // One bundle with the snapshot helpers too, as in `bp`: clashing names (`cut`, `px`) get renamed.
      const entry = join(out, "entry.ts");
      const page = join(import.meta.dir, "..");
      writeFileSync(
        entry,
        [
          `export { READ_SOURCE } from ${JSON.stringify(join(page, "read-script.ts"))};`,
          `export { SEARCH_SOURCE } from ${JSON.stringify(join(page, "search-script.ts"))};`,
          `export { FIND_SOURCE } from ${JSON.stringify(join(page, "find-script.ts"))};`,
          `export { FRAME_ELEMENT_SOURCE } from ${JSON.stringify(join(page, "inspect/compose.ts"))};`,
          `export { SNAPSHOT_SOURCE } from ${JSON.stringify(join(page, "snapshot-script.ts"))};`,
        ].join("\n"),
      );
      const built = await Bun.build({ entrypoints: [entry], outdir: join(out, "dist"), minify: true, format: "esm", target: "bun" });
      expect(built.success).toBe(true);
      const js = built.outputs.find((o) => o.kind === "entry-point");
      if (!js) throw new Error("no entry output");
      const mod = (await import(js.path)) as Sources;
      expect(mod.READ_SOURCE).not.toContain("inspectDom");
      expect(mod.SEARCH_SOURCE).not.toContain("pageSearch");
      sameAsModule((k) => new Function(`return ${mod[k]};`)() as Run);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
