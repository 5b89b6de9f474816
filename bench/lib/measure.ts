/**
 * Results table and the alternating measurement loop: every repetition runs bp, then each peer,
 * then bp again…, so slow drift of the machine (other load, thermal, caches) hits all tools alike.
 * The first `warmup` repetitions are run and thrown away.
 */
import type { Cap, Sample, Tool } from "../tools/types.ts";
import type { Fixtures } from "./fixtures.ts";
import { stats } from "./proc.ts";

export type Unit = "ms" | "chars" | "MB" | "count";

export interface Cell {
  values: number[];
  errors: string[];
  notes: Set<string>;
  /** Replaces the figure: "skipped: …", "not available yet", "n/a". */
  status?: string;
}

export interface Row {
  section: string;
  label: string;
  unit: Unit;
  cells: Map<string, Cell>;
}

export class Results {
  readonly rows: Row[] = [];
  /** Scenario descriptions: what each tool ran. */
  readonly scenarios: { title: string; text: string }[] = [];
  readonly notes: string[] = [];

  row(section: string, label: string, unit: Unit): Row {
    const row: Row = { section, label, unit, cells: new Map() };
    this.rows.push(row);
    return row;
  }

  describe(title: string, text: string): void {
    this.scenarios.push({ title, text });
  }
}

/** A tool's median in a row; undefined when it has no figure there. */
export function rowMedian(row: Row | undefined, toolId: string): number | undefined {
  return stats(row?.cells.get(toolId)?.values ?? [])?.median;
}

export function cell(row: Row, toolId: string): Cell {
  let c = row.cells.get(toolId);
  if (!c) {
    c = { values: [], errors: [], notes: new Set() };
    row.cells.set(toolId, c);
  }
  return c;
}

export interface Ctx {
  tools: Tool[];
  fx: Fixtures;
  results: Results;
  quick: boolean;
  /** Absolute directory for screenshots and other files. */
  outDir: string;
  log(message: string): void;
}

export interface Variant {
  /** Row key: bp "default" vs "all" snapshot, or "main". */
  key: string;
  fn: () => Promise<Sample>;
}

export interface Plan {
  section: string;
  warmup: number;
  runs: number;
  /** bp capability the scenario needs; without it bp reports "not available yet". */
  needs?: Cap;
  setup?: (tool: Tool) => Promise<void>;
  variants: (tool: Tool) => Variant[];
  /** `only`: a row one tool's figures fill (the others show n/a). */
  rows: { key: string; label: string; metric: "ms" | "chars"; only?: string }[];
}

export function reps(ctx: Ctx, warmup: number, runs: number): { warmup: number; runs: number } {
  return ctx.quick ? { warmup: Math.min(warmup, 1), runs: Math.min(runs, 2) } : { warmup, runs };
}

/** Runs a plan for every tool in alternating order and fills its rows. */
export async function runPlan(ctx: Ctx, plan: Plan): Promise<void> {
  const { warmup, runs } = reps(ctx, plan.warmup, plan.runs);
  const rows = plan.rows.map((r) => ({ ...r, row: ctx.results.row(plan.section, r.label, r.metric) }));
  const active: { tool: Tool; variants: Variant[]; samples: Map<string, Sample[]> }[] = [];
  for (const tool of ctx.tools) {
    const status = tool.skipped
      ? `skipped: ${tool.skipped}`
      : plan.needs && tool.missing.has(plan.needs)
        ? "not available yet"
        : undefined;
    if (status) {
      for (const r of rows) cell(r.row, tool.id).status = status;
      continue;
    }
    try {
      await plan.setup?.(tool);
    } catch (e) {
      for (const r of rows) cell(r.row, tool.id).status = `error: ${e instanceof Error ? e.message : String(e)}`;
      continue;
    }
    active.push({ tool, variants: plan.variants(tool), samples: new Map() });
  }
  for (let rep = 0; rep < warmup + runs; rep++) {
    for (const a of active) {
      for (const v of a.variants) {
        const s = await v.fn();
        if (rep < warmup) continue;
        const list = a.samples.get(v.key) ?? [];
        list.push(s);
        a.samples.set(v.key, list);
      }
    }
  }
  for (const a of active) {
    for (const r of rows) {
      const samples =
        r.only !== undefined && r.only !== a.tool.id
          ? undefined
          : (a.samples.get(r.key) ?? (a.tool.id === "bp" ? undefined : a.samples.values().next().value));
      const c = cell(r.row, a.tool.id);
      if (!samples) {
        c.status = "n/a";
        continue;
      }
      for (const s of samples) {
        if (!s.ok) c.errors.push(s.error ?? "failed");
        else c.values.push(r.metric === "ms" ? s.ms : (s.chars ?? 0));
        if (s.note) c.notes.add(s.note);
      }
    }
  }
  for (const r of rows) ctx.log(`  ${r.label}: ${summary(r.row)}`);
}

function summary(row: Row): string {
  return [...row.cells.entries()]
    .map(([id, c]) => {
      if (c.status) return `${id} ${c.status}`;
      const sorted = [...c.values].sort((a, b) => a - b);
      const med = sorted[Math.floor(sorted.length / 2)];
      return `${id} ${med === undefined ? "-" : Math.round(med)}${c.errors.length ? ` (${c.errors.length} errors)` : ""}`;
    })
    .join(", ");
}
