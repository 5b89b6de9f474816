/**
 * Capability metrics, the committed baseline and the directional gate: recall and detection may
 * only rise, false interactables may only fall, output bytes per case may grow by at most 10%,
 * and the corpus (cases, their targets and traps, probes) may not change without a new baseline.
 * Pure functions: the test feeds them real bp results; gate.test.ts feeds them made-up ones.
 */
import type { CaseResult, ProbeResult, ProbeStatus } from "./harness.ts";

export const BYTES_TOLERANCE = 0.1;
export const UPDATE_ENV = "BP_UPDATE_BASELINE";

export interface BaselineCase {
  expected: string[];
  found: string[];
  forbidden: string[];
  falseInteractables: string[];
  bytes: number;
}

export interface BaselineProbe {
  metric: ProbeResult["metric"];
  status: ProbeStatus;
  detail: string;
}

export interface Totals {
  recall: string;
  falseInteractables: string;
  actionFailureDetection: string;
  staleRefDetection: string;
  /** Observation truth probes passed / measured (absent in baselines from before they existed). */
  observationTruth?: string;
  skippedProbes: string[];
  bytes: number;
}

export interface Baseline {
  version: 1;
  /** Browser the numbers were taken with (informational; not gated). */
  browser: string;
  cases: Record<string, BaselineCase>;
  probes: Record<string, BaselineProbe>;
  totals: Totals;
}

export interface Verdict {
  /** Each one fails the gate. */
  violations: string[];
  /** Better than the baseline: passes, but the baseline should be rewritten to lock it in. */
  improvements: string[];
}

export function totals(cases: readonly CaseResult[], probes: readonly ProbeResult[]): Totals {
  const sum = (f: (c: CaseResult) => number): number => cases.reduce((n, c) => n + f(c), 0);
  const rate = (metric: ProbeResult["metric"]): string => {
    const measured = probes.filter((p) => p.metric === metric && p.status !== "skipped");
    return `${measured.filter((p) => p.status === "detected").length}/${measured.length}`;
  };
  return {
    recall: `${sum((c) => c.found.length)}/${sum((c) => c.expected.length)}`,
    falseInteractables: `${sum((c) => c.falseInteractables.length)}/${sum((c) => c.forbidden.length)}`,
    actionFailureDetection: rate("action_failure"),
    staleRefDetection: rate("stale_ref"),
    ...(probes.some((p) => p.metric === "observation") ? { observationTruth: rate("observation") } : {}),
    skippedProbes: probes.filter((p) => p.status === "skipped").map((p) => p.id),
    bytes: sum((c) => c.bytes),
  };
}

export function makeBaseline(browser: string, cases: readonly CaseResult[], probes: readonly ProbeResult[]): Baseline {
  return {
    version: 1,
    browser,
    cases: Object.fromEntries(
      cases.map((c) => [
        c.id,
        {
          expected: c.expected,
          found: c.found,
          forbidden: c.forbidden,
          falseInteractables: c.falseInteractables,
          bytes: c.bytes,
        },
      ]),
    ),
    probes: Object.fromEntries(probes.map((p) => [p.id, { metric: p.metric, status: p.status, detail: p.detail }])),
    totals: totals(cases, probes),
  };
}

const same = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export function compare(base: Baseline, cases: readonly CaseResult[], probes: readonly ProbeResult[]): Verdict {
  const violations: string[] = [];
  const improvements: string[] = [];
  const drift = (what: string): void => {
    violations.push(`corpus changed: ${what} (review, then rewrite the baseline with ${UPDATE_ENV}=1)`);
  };

  const caseIds = cases.map((c) => c.id);
  for (const id of Object.keys(base.cases)) if (!caseIds.includes(id)) drift(`case ${id} is gone`);
  for (const c of cases) {
    const b = base.cases[c.id];
    if (!b) {
      drift(`case ${c.id} is new`);
      continue;
    }
    if (!same(b.expected, c.expected)) drift(`${c.id}: expected targets differ`);
    if (!same(b.forbidden, c.forbidden)) drift(`${c.id}: must-not-appear list differs`);
    for (const t of b.found) if (!c.found.includes(t)) violations.push(`${c.id}: recall fell, ${t} is no longer found`);
    for (const t of c.found) if (!b.found.includes(t)) improvements.push(`${c.id}: ${t} is now found`);
    for (const n of c.falseInteractables)
      if (!b.falseInteractables.includes(n))
        violations.push(`${c.id}: false interactable ${JSON.stringify(n)} is now listed`);
    for (const n of b.falseInteractables)
      if (!c.falseInteractables.includes(n)) improvements.push(`${c.id}: ${JSON.stringify(n)} is no longer listed`);
    const limit = Math.floor(b.bytes * (1 + BYTES_TOLERANCE));
    if (c.bytes > limit) violations.push(`${c.id}: output grew from ${b.bytes} to ${c.bytes} bytes (limit ${limit})`);
    else if (c.bytes < b.bytes * (1 - BYTES_TOLERANCE))
      improvements.push(`${c.id}: output shrank from ${b.bytes} to ${c.bytes} bytes`);
  }

  const probeIds = probes.map((p) => p.id);
  for (const id of Object.keys(base.probes)) if (!probeIds.includes(id)) drift(`probe ${id} is gone`);
  for (const p of probes) {
    const b = base.probes[p.id];
    if (!b) {
      drift(`probe ${p.id} is new`);
      continue;
    }
    if (b.metric !== p.metric) drift(`probe ${p.id} moved from ${b.metric} to ${p.metric}`);
    else if (b.status === "skipped" && p.status !== "skipped")
      drift(`probe ${p.id} is measurable now (${p.status}: ${p.detail})`);
    else if (b.status !== "skipped" && p.status === "skipped")
      violations.push(`probe ${p.id} was measured (${b.status}) and is skipped now: ${p.detail}`);
    else if (b.status === "detected" && p.status === "missed")
      violations.push(`${p.metric} detection fell: ${p.id}: ${p.detail}`);
    else if (b.status === "missed" && p.status === "detected") improvements.push(`${p.id} is now detected`);
  }
  return { violations, improvements };
}

const pct = (ratio: string): string => {
  const [n, d] = ratio.split("/").map(Number);
  return d ? `${ratio} (${Math.round(((n ?? 0) / d) * 100)}%)` : `${ratio}`;
};

/** A small fixed-width table of the run next to the baseline. */
export function formatTable(
  browser: string,
  cases: readonly CaseResult[],
  probes: readonly ProbeResult[],
  base: Baseline | undefined,
): string {
  const rows: string[][] = [["case", "recall", "false", "bytes", "baseline bytes"]];
  for (const c of cases) {
    rows.push([
      c.id,
      `${c.found.length}/${c.expected.length}`,
      `${c.falseInteractables.length}/${c.forbidden.length}`,
      String(c.bytes),
      String(base?.cases[c.id]?.bytes ?? "-"),
    ]);
  }
  const t = totals(cases, probes);
  rows.push(["total", t.recall, t.falseInteractables, String(t.bytes), String(base?.totals.bytes ?? "-")]);
  const probeRows: string[][] = [["probe", "metric", "result", "baseline", "detail"]];
  for (const p of probes) probeRows.push([p.id, p.metric, p.status, base?.probes[p.id]?.status ?? "-", p.detail]);
  const summary = [
    `recall ${pct(t.recall)}`,
    `false interactables ${t.falseInteractables}`,
    `action failure detection ${pct(t.actionFailureDetection)}${t.skippedProbes.some((id) => probes.find((p) => p.id === id)?.metric === "action_failure") ? " (+ skipped)" : ""}`,
    `stale ref detection ${pct(t.staleRefDetection)}`,
    ...(t.observationTruth !== undefined ? [`observation truth ${pct(t.observationTruth)}`] : []),
    `output ${t.bytes} bytes over ${cases.length} cases`,
  ];
  return [`capability corpus: dist/bp on ${browser}`, grid(rows), "", grid(probeRows), "", summary.join(" · ")].join(
    "\n",
  );
}

function grid(rows: readonly string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "))
    .join("\n");
}
