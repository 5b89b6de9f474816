/**
 * Warm steps less each tool's start-up floor: what the tool does above the process start it cannot
 * avoid (bp's is the Bun runtime's, fixed by the design; agent-browser's a native executable's).
 * Each step's median minus the tool's `--version` median times the processes the step starts:
 * bp answers an act-and-see step in one call, a peer in its action plus its snapshot.
 */
import { stats } from "./proc.ts";
import type { Results, Row } from "./measure.ts";

export const ABOVE_FLOOR_SECTION = "Warm steps above each tool's start-up floor";

/** The rows it derives from: the step's section, its label, and how many processes a peer starts for it (bp: one). */
const STEPS: { section: string; label: string; peerCalls: number; name: string }[] = [
  { section: "Warm commands", label: "trivial command (`eval 1+1`), ms", peerCalls: 1, name: "`eval 1+1`" },
  { section: "Snapshot: small form", label: "time, ms", peerCalls: 1, name: "small-form snapshot" },
  {
    section: "Act and see the result (one agent step)",
    label: "click a button, ms",
    peerCalls: 2,
    name: "form: click and see",
  },
  {
    section: "Act and see the result (one agent step)",
    label: "fill a text field, ms",
    peerCalls: 2,
    name: "form: fill and see",
  },
  {
    section: "Navigation",
    label: "open the form page and see its controls (one agent step), ms",
    peerCalls: 2,
    name: "open and see",
  },
];

/** Widget steps are found by their section's prefix (their labels come from bench/scenarios/widgets.ts). */
const WIDGET_PREFIX = "Act and see on widget pages: ";

function median(row: Row | undefined, tool: string): number | undefined {
  return stats(row?.cells.get(tool)?.values ?? [])?.median;
}

/** Adds the section when the warm floor row was measured; a tool's cell is left out where either figure is missing. */
export function aboveFloor(results: Results, tools: string[]): void {
  const floorRow = results.rows.find((r) => r.section === "Warm commands" && r.label.startsWith("start-up floor"));
  if (!floorRow) return;
  const find = (section: string, label: string) => results.rows.find((r) => r.section === section && r.label === label);
  const steps = [
    ...STEPS.map((s) => ({ ...s, row: find(s.section, s.label) })),
    ...results.rows
      .filter((r) => r.section.startsWith(WIDGET_PREFIX) && r.label === "act + one look, ms")
      .map((row) => ({ row, peerCalls: 2, name: row.section.slice(WIDGET_PREFIX.length) })),
  ];
  let described = false;
  for (const s of steps) {
    if (!s.row) continue;
    const out = results.row(ABOVE_FLOOR_SECTION, `${s.name}, ms`, "ms");
    for (const tool of tools) {
      const floor = median(floorRow, tool);
      const step = median(s.row, tool);
      if (floor === undefined || step === undefined) continue;
      const calls = tool === "bp" ? 1 : s.peerCalls;
      const c = out.cells.get(tool) ?? { values: [], errors: [], notes: new Set<string>() };
      c.values.push(Math.max(0, step - calls * floor));
      if (calls > 1) c.notes.add(`${calls} calls`);
      out.cells.set(tool, c);
    }
    if (!described) {
      results.describe(
        ABOVE_FLOOR_SECTION,
        "each step's median above, less the tool's start-up floor (its `--version` median in the same run) for every " +
          "process the step starts: one for bp, two for a peer's action and its snapshot. What remains is the tool's " +
          "own work (argument parsing, socket, daemon, browser calls, settling, output) and the browser's.",
      );
      described = true;
    }
  }
}
