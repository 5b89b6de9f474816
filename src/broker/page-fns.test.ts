import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { ProbeHit, ProbeMiss, State } from "../page/act/probe.ts";
import { BpError } from "../shared/errors.ts";
import { readResult, step, stepResult, type PageArg, type PageResult, type Results } from "./page-fns.ts";

/** True only when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Checked by the type check (tsc), not at run time: a wrong per-op type fails `tsc --noEmit`. */
function same<T extends true>(): T | undefined {
  return undefined;
}

describe("page calls typed by function and op", () => {
  test("an op's result is that op's own answer, not the union of the function's ops", () => {
    same<Equal<PageResult<"act", { op: "state" }>, State>>();
    same<Equal<PageResult<"act", { op: "hovered" }>, boolean>>();
    same<Equal<PageResult<"act", { op: "probe" }>, ProbeHit | ProbeMiss>>();
    same<Equal<PageResult<"drag", { op: "check" }>, boolean>>();
    // The quiet watcher's ops: watchers that are gone (a new document) answer null.
    same<Equal<PageResult<"quiet", { op: "install" }>, true>>();
    same<Equal<PageResult<"quiet", { op: "late" }>, { changed: boolean } | null>>();
    same<Equal<NonNullable<PageResult<"quiet", { op: "settle" }>>["settled"], true | undefined>>();
    same<
      Equal<
        PageResult<"upload", { op: "files" }>,
        { ok: true; count: number; names: string[] } | { ok: false; reason: "target_unavailable" }
      >
    >();
    same<
      Equal<
        PageResult<"edit", { op: "check" }>,
        | { ok: true }
        | { ok: false; reason: "target_detached" | "focus_changed" }
        | { ok: false; reason: "document_replaced" }
      >
    >();
    // A step built by `step` carries its op, so a call's results are typed per step.
    const steps = [step("act", { op: "state" }), step("edit", { op: "pin", token: "t" })] as const;
    same<Equal<Results<typeof steps>[0], State | null | undefined>>();
    same<
      Equal<
        Results<typeof steps>[1],
        | { ok: true; focused: boolean; then?: true; moved?: true }
        | { ok: false; reason: "document_replaced" }
        | null
        | undefined
      >
    >();
    expect(steps.map((s) => s.arg?.op)).toEqual(["state", "pin"]);
  });

  test("an op's argument is checked against that op", () => {
    const read: PageArg<"edit"> = { op: "read", token: "t", text: "x", mode: "append" };
    // @ts-expect-error read needs the text and how to compare it
    const partial: PageArg<"edit"> = { op: "read", token: "t" };
    // @ts-expect-error no such op
    const unknown: PageArg<"select"> = { op: "pick" };
    // @ts-expect-error setNative takes the option's index
    const noIndex: PageArg<"select"> = { op: "setNative" };
    expect([read, partial, unknown, noIndex].map((a) => String(a.op))).toEqual(["read", "read", "pick", "setNative"]);
  });

  test("a located step's result is read only from the step that names that function and op", () => {
    const ran = {
      steps: [step("upload", { op: "find" }), { fn: "quiet" as const, arg: { op: "install", id: 1 } }],
      results: [{ ok: true, multiple: false, disabled: false, accept: "" }, true],
    };
    const found = stepResult(ran, 0, "upload", "find");
    expect(found).toEqual({ ok: true, multiple: false, disabled: false, accept: "" });
    const wrong = [
      () => stepResult(ran, 0, "upload", "files"),
      () => stepResult(ran, 1, "upload", "find"),
      () => stepResult(ran, 2, "upload", "find"),
    ];
    for (const read of wrong) {
      expect(read).toThrow(BpError);
      expect(read).toThrow(/No upload (files|find) step ran at [0-2]/);
    }
  });

  test("a read-back that did not run is null (held back) or undefined (cut short), and is not read from another step", () => {
    const steps = [
      step("edit", { op: "read", token: "t", text: "x", mode: "replace" }),
      step("edit", { op: "state", token: "t" }),
    ];
    expect(readResult({ steps, results: [null] }, 0, "edit", "read")).toBeNull();
    expect(readResult({ steps, results: [] }, 0, "edit", "read")).toBeUndefined();
    const state = { ok: true as const, sameFocus: true, length: 1, selection: "1:1", control: {}, focusControl: {} };
    expect(readResult({ steps, results: [null, state] }, 1, "edit", "state")).toEqual(state);
    expect(() => readResult({ steps, results: [null, state] }, 1, "edit", "read")).toThrow(
      /No edit read step ran at 1/,
    );
  });
});

const BROKER = import.meta.dir;

function brokerSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...brokerSources(p));
    else if (p.endsWith(".ts") && !p.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

/**
 * Ways of taking a page answer as a type by hand: a cast of a call's results, a double cast,
 * or a page call given its result type as a type argument. The typed calls (page-fns.ts:
 * callFn, callSteps, stepResult, readResult) derive it from the function and op instead.
 */
const HAND_TYPED = [
  /\bresults\[\d+\]\)?\s+as\s/,
  /\bas unknown as\b/,
  /\b(callInFrame|callOnSlot|callFn|callSteps)<(?!F\b)[A-Z]\w*>\(/,
  // A read-back taken as one of the page answers' types by hand.
  /\bas (ElementState|FocusState|Probe|Prepared|Listing|Readback|ReadBack|QuietPoll|State)\b/,
];

describe("no hand-typed page answers in the broker", () => {
  test("page-call results are typed from the page functions, not cast", () => {
    const found: Record<string, string[]> = {};
    for (const file of brokerSources(BROKER)) {
      const rel = relative(BROKER, file);
      // The one place that takes the page's JSON answer as the function's type.
      if (rel === "page-fns.ts") continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (HAND_TYPED.some((re) => re.test(line)))
            (found[rel] ??= []).push(`${i + 1}: ${line.trim().slice(0, 120)}`);
        });
    }
    expect(found).toEqual({});
  });
});
