import { afterAll, describe, expect, test } from "bun:test";
import type { Window } from "happy-dom";
import { closePages, page as shared } from "../../test/support/happy-dom.ts";
import {
  INSTALL_AND_RUN,
  INSTALL_ON_NEW_DOCUMENT,
  readReply,
  RUN,
  RUNTIME_KEY,
  type PageReply,
  type PageStep,
} from "./runtime.ts";
import type { SnapshotResult } from "./types.ts";

afterAll(closePages);

type Call = (call: { steps: PageStep[]; doc?: string; tm?: 1 }) => Promise<PageReply | { missing: true }>;

/** The two function declarations the broker sends, bound to a happy-dom window as `window`. */
function page(html: string): { w: Window; install: Call; run: Call } {
  const { w } = shared(html);
  // As the broker reads it (world.ts callPage): JSON text, or the missing marker.
  const bind = (decl: string): Call => {
    const fn = new Function("window", `return (${decl});`)(w) as (call: unknown) => unknown;
    return async (call) => readReply(await fn(call));
  };
  return { w, install: bind(INSTALL_AND_RUN), run: bind(RUN) };
}

describe("page runtime", () => {
  test("answers its time per step only when asked (the broker's off-by-default phase timing)", async () => {
    const { install, run } = page(`<button>Go</button>`);
    const steps: PageStep[] = [
      { fn: "snapshot", arg: { layout: false, fold: false } },
      { fn: "ref", ref: 1 },
      { fn: "act", ref: 1, arg: { op: "state" } },
    ];
    const plain = (await install({ steps })) as PageReply;
    expect(plain.tm).toBeUndefined();
    const timed = (await run({ steps, tm: 1 })) as PageReply;
    expect(timed.results).toHaveLength(3);
    expect(timed.tm).toHaveLength(3);
    for (const ms of timed.tm ?? []) expect(ms).toBeGreaterThanOrEqual(0);
  });

  test("installed once, then called by name; steps run in order in one call", async () => {
    const { w, install, run } = page(`<button onclick="this.textContent='Done'">Go</button>`);
    expect(await run({ steps: [] })).toEqual({ missing: true });
    const first = (await install({ steps: [{ fn: "snapshot", arg: { layout: false, fold: false } }] })) as PageReply;
    const snap = first.results[0] as SnapshotResult;
    const first0 = snap.elements[0];
    const ref = first0 && first0.kind !== "fold" ? first0.ref : 0;
    expect(ref).toBe(1);
    expect(Reflect.get(w, Symbol.for(RUNTIME_KEY))).toBeDefined();
    // Later calls name the functions; the ref check and the element script share the call.
    const later = (await run({
      doc: first.doc,
      steps: [
        { fn: "ref", ref },
        { fn: "act", ref, arg: { op: "state" } },
      ],
    })) as PageReply;
    expect(later.doc).toBe(first.doc);
    expect(later.results[0]).toBeNull();
    expect(later.results[1]).toMatchObject({ connected: true });
  });

  test("the script the browser runs as a document begins installs the runtime, and the calls name it", async () => {
    const { w, install, run } = page(`<button>Go</button>`);
    new Function("window", INSTALL_ON_NEW_DOCUMENT)(w);
    const rt = Reflect.get(w, Symbol.for(RUNTIME_KEY));
    expect(rt).toBeDefined();
    const first = (await run({ steps: [{ fn: "snapshot", arg: { layout: false, fold: false } }] })) as PageReply;
    expect((first.results[0] as SnapshotResult).elements).toHaveLength(1);
    // The installing call keeps the runtime (and its document token) that was there.
    const again = (await install({ steps: [] })) as PageReply;
    expect(again.doc).toBe(first.doc);
    expect(Reflect.get(w, Symbol.for(RUNTIME_KEY))).toBe(rt);
  });

  test("a ref that no longer resolves stops the call; another document's token runs nothing", async () => {
    const { install, run } = page(`<button>Go</button>`);
    const first = (await install({ steps: [{ fn: "snapshot", arg: { layout: false, fold: false } }] })) as PageReply;
    const gone = (await run({
      steps: [
        { fn: "ref", ref: 99 },
        { fn: "act", ref: 99, arg: { op: "state" } },
      ],
    })) as PageReply;
    expect(gone.results).toEqual(["unknown_ref"]);
    const other = (await run({
      doc: "not-this-document",
      steps: [{ fn: "act", ref: 1, arg: { op: "state" } }],
    })) as PageReply;
    expect(other).toEqual({ doc: first.doc, otherDocument: true, results: [] });
  });

  test("a step with `when` runs only once the settle step said settled", async () => {
    const { install } = page(`<p>x</p>`);
    const armed = (await install({ steps: [{ fn: "quiet", arg: { op: "install", id: 1 } }] })) as PageReply;
    expect(armed.results).toEqual([true]);
    // A plain poll gives no verdict: the held-back step does not run.
    const r = (await install({
      steps: [
        { fn: "quiet", arg: { op: "poll", ids: [1], after: 0 } },
        { fn: "snapshot", arg: { layout: false }, when: { step: 0 } },
      ],
    })) as PageReply;
    expect(r.results[1]).toBeNull();
    // A settle step that says settled lets it run in the same call.
    const settled = (await install({
      steps: [
        { fn: "quiet", arg: { op: "settle", ids: [1], quietFor: 50, frames: 3, max: 1000, finish: true } },
        { fn: "snapshot", arg: { layout: false }, when: { step: 0 } },
      ],
    })) as PageReply;
    expect(settled.results[0]).toMatchObject({ settled: true });
    expect(settled.results[1]).toMatchObject({ elements: expect.any(Array) });
  });

  test("a step with `unlessFocused` is skipped when the step before it found the field focused", async () => {
    const { w, install } = page(`<input aria-label="Name">`);
    const snap = (await install({ steps: [{ fn: "snapshot", arg: { layout: false, fold: false } }] })) as PageReply;
    const first = (snap.results[0] as SnapshotResult).elements[0];
    const ref = first && first.kind !== "fold" ? first.ref : 0;
    const steps = (): PageStep[] => [
      { fn: "ref", ref },
      { fn: "edit", ref, arg: { op: "prepare", token: "t" } },
      { fn: "act", ref, arg: { op: "probe", noScroll: true }, unlessFocused: true },
    ];
    // Not focused: the probe runs (and answers, whatever it finds in a page without layout).
    const blurred = (await install({ steps: steps() })) as PageReply;
    expect(blurred.results[1]).toMatchObject({ ok: true, focused: false });
    expect(blurred.results[2]).not.toBeNull();
    w.document.querySelector("input")?.focus();
    const focused = (await install({ steps: steps() })) as PageReply;
    expect(focused.results[1]).toMatchObject({ ok: true, focused: true });
    expect(focused.results[2]).toBeNull();
  });
});
