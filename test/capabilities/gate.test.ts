/**
 * The directional gate on made-up results: every way the corpus may get worse fails, every way
 * it may get better passes (and is reported), and a changed corpus fails until re-baselined.
 */
import { describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { compare, formatTable, makeBaseline, totals } from "./gate.ts";
import type { CaseResult, ProbeResult } from "./harness.ts";

requireChromium();

const caseResult = (over: Partial<CaseResult> = {}): CaseResult => ({
  id: "c1",
  expected: ['button "A"', 'button "B"'],
  found: ['button "A"'],
  forbidden: ["Hidden", "Ghost"],
  falseInteractables: ["Ghost"],
  bytes: 200,
  ...over,
});

const probes = (over: Partial<Record<string, ProbeResult["status"]>> = {}): ProbeResult[] => [
  { id: "covered", metric: "action_failure", status: over.covered ?? "detected", detail: "" },
  { id: "rollback", metric: "action_failure", status: over.rollback ?? "skipped", detail: "bp type missing" },
  { id: "stale", metric: "stale_ref", status: over.stale ?? "missed", detail: "" },
];

const base = makeBaseline("Chromium test", [caseResult()], probes());

describe("capability gate", () => {
  test("the same results pass with nothing to report", () => {
    expect(compare(base, [caseResult()], probes())).toEqual({ violations: [], improvements: [] });
  });

  test("recall, false interactables and detection may only move one way", () => {
    const worse = compare(
      base,
      [caseResult({ found: [], falseInteractables: ["Ghost", "Hidden"] })],
      probes({ covered: "missed" }),
    );
    expect(worse.violations).toEqual([
      'c1: recall fell, button "A" is no longer found',
      'c1: false interactable "Hidden" is now listed',
      "action_failure detection fell: covered: ",
    ]);
    const better = compare(
      base,
      [caseResult({ found: ['button "A"', 'button "B"'], falseInteractables: [] })],
      probes({ stale: "detected" }),
    );
    expect(better.violations).toEqual([]);
    expect(better.improvements).toEqual([
      'c1: button "B" is now found',
      'c1: "Ghost" is no longer listed',
      "stale is now detected",
    ]);
  });

  test("output may grow by at most 10% and may shrink", () => {
    expect(compare(base, [caseResult({ bytes: 220 })], probes()).violations).toEqual([]);
    expect(compare(base, [caseResult({ bytes: 221 })], probes()).violations).toEqual([
      "c1: output grew from 200 to 221 bytes (limit 220)",
    ]);
    expect(compare(base, [caseResult({ bytes: 100 })], probes())).toEqual({
      violations: [],
      improvements: ["c1: output shrank from 200 to 100 bytes"],
    });
  });

  test("the corpus may not change silently", () => {
    const drift = (r: ReturnType<typeof compare>): boolean =>
      r.violations.length > 0 && r.violations.every((v) => v.startsWith("corpus changed:"));
    expect(drift(compare(base, [caseResult({ id: "c2" })], probes()))).toBe(true);
    expect(drift(compare(base, [caseResult(), caseResult({ id: "c2" })], probes()))).toBe(true);
    expect(drift(compare(base, [caseResult({ expected: ['button "A"'] })], probes()))).toBe(true);
    expect(drift(compare(base, [caseResult({ forbidden: ["Hidden"] })], probes()))).toBe(true);
    expect(drift(compare(base, [caseResult()], probes().slice(1)))).toBe(true);
    // A skipped probe that becomes measurable (bp type lands) needs a deliberate new baseline.
    expect(drift(compare(base, [caseResult()], probes({ rollback: "detected" })))).toBe(true);
    // A measured probe may not quietly become skipped.
    expect(compare(base, [caseResult()], probes({ covered: "skipped" })).violations).toEqual([
      "probe covered was measured (detected) and is skipped now: ",
    ]);
  });

  test("totals and the printed table count only measured probes", () => {
    const t = totals([caseResult()], probes());
    expect(t).toEqual({
      recall: "1/2",
      falseInteractables: "1/2",
      actionFailureDetection: "1/1",
      staleRefDetection: "0/1",
      skippedProbes: ["rollback"],
      bytes: 200,
    });
    const table = formatTable("Chromium test", [caseResult()], probes(), base);
    expect(table).toContain("recall 1/2 (50%)");
    expect(table).toContain("rollback  action_failure  skipped");
  });
});
