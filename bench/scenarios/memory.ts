/**
 * Resident memory (VmRSS) of the long-lived helper processes: bp's broker and janitor (broker pid
 * from $BROWSER_PILOT_HOME/broker-locator.json, janitor = its child with
 * --browser-pilot-internal=janitor), and each peer's daemon for its main session. The browser
 * itself is not counted (the same Chromium for everyone).
 */
import { cell, type Ctx } from "../lib/measure.ts";
import { rssMb } from "../lib/proc.ts";

const READINGS = 5;

export function describeMemory(ctx: Ctx): void {
  ctx.results.describe(
    "Memory",
    "VmRSS from /proc/<pid>/status, five readings 200 ms apart. bp: broker (pid from broker-locator.json) and " +
      "janitor; agent-browser: the session daemon (pid file in its socket dir); playwright-cli: the session daemon " +
      "(node …/cliDaemon.js). Idle = after the session opened its first tab; after = when every scenario has run.",
  );
}

export async function memory(ctx: Ctx, phase: "idle" | "after the run"): Promise<void> {
  const section = `Memory (${phase})`;
  const daemonRow = ctx.results.row(section, "broker / daemon RSS, MB", "MB");
  const janitorRow = ctx.results.row(section, "janitor RSS, MB", "MB");
  const totalRow = ctx.results.row(section, "helper processes total, MB", "MB");
  const rows = [daemonRow, janitorRow, totalRow];
  const found = new Map<string, { label: string; pid: number }[]>();
  for (const t of ctx.tools) {
    if (t.skipped) {
      for (const r of rows) cell(r, t.id).status = `skipped: ${t.skipped}`;
      continue;
    }
    const procs = t.daemons();
    if (procs.length === 0) for (const r of rows) cell(r, t.id).status = "pid not found";
    else {
      found.set(t.id, procs);
      if (!procs.some((p) => p.label === "janitor")) cell(janitorRow, t.id).status = "n/a";
    }
  }
  for (let i = 0; i < READINGS; i++) {
    if (i > 0) await Bun.sleep(200);
    for (const [id, procs] of found) {
      let total = 0;
      for (const p of procs) {
        const mb = rssMb(p.pid);
        if (mb === undefined) continue;
        total += mb;
        cell(p.label === "janitor" ? janitorRow : daemonRow, id).values.push(mb);
      }
      cell(totalRow, id).values.push(total);
    }
  }
  ctx.log(
    `  ${section}: ${[...found].map(([id, p]) => `${id} ${p.map((x) => `${x.label}=${x.pid}`).join(" ")}`).join(", ")}`,
  );
}
