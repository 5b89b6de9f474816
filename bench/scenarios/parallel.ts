/**
 * Four agents in parallel, each in its own tab, 25 steps each.
 *
 * bp: four client keys on the one running broker and browser, each `open <url> --new`.
 * Peers: four sessions (their isolation unit: one daemon and one browser each), each `open <url>`.
 * Phase 1 (all agents get their tab) and phase 2 (all agents run their steps) are timed as wall
 * time across the four agents, with a barrier between them; tools alternate per repetition.
 */
import { CLICK_TARGET } from "../lib/fixtures.ts";
import { cell, reps, type Ctx } from "../lib/measure.ts";
import { BpTool } from "../tools/bp.ts";
import type { Exec } from "../lib/proc.ts";
import { errorText, type Tool } from "../tools/types.ts";

const AGENTS = 4;
const STEPS = 25;

type Step = "navigate" | "snapshot" | "click" | "eval";

/** The step mix follows what bp can do today, and is the same for every tool in the run. */
function stepMix(bp: Tool | undefined): Step[] {
  const snapshot = bp && !bp.missing.has("snapshot");
  const click = snapshot && !bp.missing.has("click");
  return ["navigate", snapshot ? "snapshot" : "eval", click ? "click" : "eval", "eval", "eval"];
}

interface AgentRun {
  errors: string[];
  /** Time of each successful command, by step kind. */
  times: Map<Step, number[]>;
}

async function agentSteps(
  ctx: Ctx,
  tool: Tool,
  session: string,
  mix: Step[],
  agent: number,
  run: (args: string[]) => Promise<Exec> = (args) => tool.run(args, session),
): Promise<AgentRun> {
  const errors: string[] = [];
  const times = new Map<Step, number[]>();
  let lastSnapshot = "";
  for (let i = 0; i < STEPS; i++) {
    const kind = mix[i % mix.length] ?? "eval";
    let args: string[];
    if (kind === "navigate") args = tool.cmd.navigate(ctx.fx.url(`/form?agent=${agent}&step=${i}`));
    else if (kind === "snapshot") args = tool.cmd.snapshots[0]?.args ?? ["snapshot"];
    else if (kind === "click") {
      const ref = tool.findRef(lastSnapshot, CLICK_TARGET);
      if (!ref) {
        errors.push("click: no ref in the previous snapshot");
        continue;
      }
      args = tool.cmd.click(ref);
    } else args = tool.cmd.eval("document.title");
    const e = await run(args);
    if (!tool.ok(e)) {
      errors.push(`${kind}: ${errorText(e)}`);
      continue;
    }
    if (kind === "snapshot") lastSnapshot = e.out;
    times.set(kind, [...(times.get(kind) ?? []), e.ms]);
  }
  return { errors, times };
}

export async function parallelAgents(ctx: Ctx): Promise<void> {
  const bp = ctx.tools.find((t) => t.id === "bp");
  const mix = stepMix(bp);
  ctx.results.describe(
    "Four agents in parallel",
    `${AGENTS} agents at once, each in its own tab: bp uses ${AGENTS} different BROWSER_PILOT_CLIENT_KEY values on the ` +
      `running broker and browser, each \`open <url> --new\`; agent-browser and playwright-cli use ${AGENTS} sessions ` +
      `(their isolation unit, a daemon and a browser each), each \`open <url>\`. Then ${STEPS} steps per agent, ` +
      `repeating [${mix.join(", ")}] (navigate = open/goto the form page; eval = document.title; snapshot and ` +
      `click use each tool's command; the mix follows what bp can do in this build). Wall time across the ` +
      `${AGENTS} agents, the two phases separated by a barrier. Errors = failed commands per run, out of ` +
      `${AGENTS * (STEPS + 1)}. The last rows give the median time of one command of each kind inside the run. ` +
      "Agents are released after each run (untimed). For comparison, bp also runs the same steps with one broker and " +
      "browser per agent (a home each, launched untimed), as the peers' sessions are: the difference to the shared " +
      "run is what sharing one browser costs on this machine.",
  );
  const section = `${AGENTS} agents in parallel, ${STEPS} steps each`;
  const openRow = ctx.results.row(section, `${AGENTS} agents get their own tab, ms`, "ms");
  const stepsRow = ctx.results.row(section, `${AGENTS} × ${STEPS} steps, ms`, "ms");
  const totalRow = ctx.results.row(section, "total, ms", "ms");
  const isolatedRow = ctx.results.row(section, `${AGENTS} × ${STEPS} steps, bp with a browser per agent, ms`, "ms");
  const errorRow = ctx.results.row(section, "failed commands per run, count", "count");
  const kinds = [...new Set(mix)];
  const kindRows = new Map(
    kinds.map((k) => [k, ctx.results.row(section, `one ${k} command under this load, ms`, "ms")]),
  );
  const rows = [openRow, stepsRow, totalRow, isolatedRow, errorRow, ...kindRows.values()];
  const active: Tool[] = [];
  for (const t of ctx.tools) {
    if (t.skipped) for (const r of rows) cell(r, t.id).status = `skipped: ${t.skipped}`;
    else active.push(t);
  }
  const { warmup, runs } = reps(ctx, 1, 3);
  for (let rep = 0; rep < warmup + runs; rep++) {
    for (const tool of active) {
      const sessions = Array.from({ length: AGENTS }, (_, i) => `bench-r${rep}-a${i + 1}`);
      const errors: string[] = [];
      const t0 = performance.now();
      const opened = await Promise.all(sessions.map((s) => tool.run(tool.cmd.firstOpen(ctx.fx.url("/form")), s)));
      for (const e of opened) if (!tool.ok(e)) errors.push(`open: ${errorText(e)}`);
      const t1 = performance.now();
      const runsOut = await Promise.all(sessions.map((s, i) => agentSteps(ctx, tool, s, mix, i + 1)));
      const t2 = performance.now();
      for (const r of runsOut) errors.push(...r.errors);
      for (const s of sessions) await tool.endAgent(s);
      if (rep < warmup) continue;
      cell(openRow, tool.id).values.push(t1 - t0);
      cell(stepsRow, tool.id).values.push(t2 - t1);
      cell(totalRow, tool.id).values.push(t2 - t0);
      cell(errorRow, tool.id).values.push(errors.length);
      for (const r of runsOut)
        for (const [k, ms] of r.times) cell(kindRows.get(k) ?? errorRow, tool.id).values.push(...ms);
      const notes = cell(errorRow, tool.id).notes;
      for (const e of new Set(errors)) if (notes.size < 3) notes.add(e.slice(0, 80));
      ctx.log(`  ${tool.id} run ${rep - warmup + 1}: ${Math.round(t2 - t0)} ms, ${errors.length} errors`);
      if (tool instanceof BpTool) await isolatedRun(ctx, tool, mix, rep < warmup ? undefined : isolatedRow);
    }
  }
  for (const t of ctx.tools) if (t.id !== "bp" && !t.skipped) cell(isolatedRow, t.id).status = "n/a";
}

/** The same steps through bp with a broker and browser per agent; the set-up is not timed. */
async function isolatedRun(
  ctx: Ctx,
  bp: BpTool,
  mix: Step[],
  row: ReturnType<Ctx["results"]["row"]> | undefined,
): Promise<void> {
  const agents = Array.from({ length: AGENTS }, (_, i) => `a${i + 1}`);
  try {
    const ready = await Promise.all(
      agents.map(
        async (a) =>
          (await bp.runIsolated(a, ["launch", "--headless"])).code === 0 &&
          bp.ok(await bp.runIsolated(a, bp.cmd.firstOpen(ctx.fx.url("/form")))),
      ),
    );
    if (ready.includes(false)) {
      if (row) cell(row, bp.id).notes.add("an agent's browser did not start");
      return;
    }
    const t0 = performance.now();
    const out = await Promise.all(
      agents.map((a, i) => agentSteps(ctx, bp, a, mix, i + 1, (args) => bp.runIsolated(a, args))),
    );
    const ms = performance.now() - t0;
    const errors = out.flatMap((r) => r.errors);
    if (row) {
      if (errors.length > 0) cell(row, bp.id).notes.add(`${errors.length} failed: ${(errors[0] ?? "").slice(0, 60)}`);
      else cell(row, bp.id).values.push(ms);
    }
    ctx.log(`  bp, a browser per agent: ${Math.round(ms)} ms, ${errors.length} errors`);
  } finally {
    await bp.endIsolated();
  }
}
