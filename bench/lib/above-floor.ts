/**
 * Warm steps less each tool's start-up floor: what the tool does above the process start it cannot
 * avoid (bp's is the Bun runtime's, fixed by the design; agent-browser's a native executable's).
 * Each step's median minus the tool's `--version` median times the processes the step starts:
 * bp answers an act-and-see step in one call, a peer in its action plus its snapshot.
 */
import type { Tool } from "../tools/types.ts";
import { rowMedian as median, type Results } from "./measure.ts";

export const ABOVE_FLOOR_SECTION = "Warm steps above each tool's start-up floor";

/** How many processes a tool starts for a step: one command, an action and its look, or a navigation and its look. */
type Kind = "one" | "act" | "open" | "back";
function calls(t: Tool, kind: Kind): number {
  if (kind === "one") return 1;
  if (kind === "act") return t.cmd.observeAfterAction ? 2 : 1;
  return (kind === "open" ? t.cmd.navigateAndLook : t.cmd.backAndLook) ? 1 : 2;
}

/** The rows it derives from (the labels of bench/scenarios/basic.ts and observe.ts). */
const STEPS: { section: string; label: string; kind: Kind; name: string }[] = [
  { section: "Warm commands", label: "trivial command (`eval 1+1`), ms", kind: "one", name: "`eval 1+1`" },
  { section: "Snapshot: small form", label: "time, ms", kind: "one", name: "small-form snapshot" },
  {
    section: "Act and see the result (one agent step)",
    label: "click a button, ms",
    kind: "act",
    name: "form: click and see",
  },
  {
    section: "Act and see the result (one agent step)",
    label: "fill a text field, ms",
    kind: "act",
    name: "form: fill and see",
  },
  {
    section: "Navigation",
    label: "open the form page and see its controls (one agent step), ms",
    kind: "open",
    name: "open and see",
  },
  {
    section: "Navigation",
    label: "go back to the form page and see its controls (one agent step), ms",
    kind: "back",
    name: "back and see",
  },
];

/** Widget steps are found by their section's prefix (their labels come from bench/scenarios/widgets.ts). */
const WIDGET_PREFIX = "Act and see on widget pages: ";

/** Adds the section when the warm floor row was measured; a tool's cell is left out where either figure is missing. */
export function aboveFloor(results: Results, tools: Tool[]): void {
  const floorRow = results.rows.find((r) => r.section === "Warm commands" && r.label.startsWith("start-up floor"));
  if (!floorRow) return;
  const find = (section: string, label: string) => results.rows.find((r) => r.section === section && r.label === label);
  const steps = [
    ...STEPS.map((s) => ({ ...s, row: find(s.section, s.label) })),
    ...results.rows
      .filter((r) => r.section.startsWith(WIDGET_PREFIX) && r.label === "act + one look, ms")
      .filter((r) => {
        // A step whose action and one look did not show a tool the effect is more calls than two for it: left out.
        const shown = find(r.section, "effect shown by act + one look, runs");
        const short = [...(shown?.cells ?? new Map()).entries()].filter(([, c]) =>
          c.values.some((n: number) => !c.notes.has(`of ${n}`)),
        );
        if (short.length > 0)
          results.notes.push(
            `Above the floor, “${r.section.slice(WIDGET_PREFIX.length)}” is left out: ${short.map(([id]) => id).join(", ")}'s action and one look did not show the effect, so its step is more calls than the row counts.`,
          );
        return short.length === 0;
      })
      .map((row) => ({ row, kind: "act" as const, name: row.section.slice(WIDGET_PREFIX.length) })),
  ];
  let described = false;
  for (const s of steps) {
    if (!s.row) continue;
    const out = results.row(ABOVE_FLOOR_SECTION, `${s.name}, ms`, "ms");
    for (const tool of tools) {
      const floor = median(floorRow, tool.id);
      const step = median(s.row, tool.id);
      if (floor === undefined || step === undefined) continue;
      const n = calls(tool, s.kind);
      const c = out.cells.get(tool.id) ?? { values: [], errors: [], notes: new Set<string>() };
      c.values.push(Math.max(0, step - n * floor));
      if (n > 1) c.notes.add(`${n} calls`);
      // A figure from the runs that succeeded: the failures stay in sight.
      const failed = s.row.cells.get(tool.id)?.errors.length ?? 0;
      if (failed > 0) c.notes.add(`${failed} runs failed`);
      out.cells.set(tool.id, c);
    }
    if (!described) {
      results.describe(
        ABOVE_FLOOR_SECTION,
        "each step's median above, less the tool's start-up floor (its `--version` median in the same run) for every " +
          "process the step starts: one for bp, two for a peer's action and its snapshot. What remains is the tool's " +
          "own work (argument parsing, socket, daemon, browser calls, settling, output) and the browser's. The floor is " +
          "measured once, at the start of the run: a load that changes later moves a step that starts two processes " +
          "twice as much.",
      );
      described = true;
    }
  }
}
