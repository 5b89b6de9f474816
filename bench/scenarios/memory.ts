/**
 * Memory of the long-lived helper processes: bp's broker and janitor (broker pid from
 * $BROWSER_PILOT_HOME/broker-locator.json, janitor = its child with --browser-pilot-internal=janitor),
 * and each peer's daemon for its main session. The browser itself is not counted (the same Chromium
 * for everyone). Resident (VmRSS) per process and summed, and the sum of PSS, which counts the
 * executable pages two helpers share once instead of twice.
 */
import { cell, type Ctx } from "../lib/measure.ts";
import { pssMb, rssMb } from "../lib/proc.ts";

const READINGS = 5;

export function describeMemory(ctx: Ctx): void {
  ctx.results.describe(
    "Memory",
    "Five readings 200 ms apart. RSS: VmRSS from /proc/<pid>/status, what `ps` and `top` show per process; the " +
      "total adds them, so pages of one executable that two helpers both touched (bp's broker and janitor are the " +
      "same file) count twice. PSS: Pss from /proc/<pid>/smaps_rollup, each shared page split among the processes " +
      "that map it; the PSS total is what the helpers hold between them. Both include file pages (the executable's " +
      "code, reclaimable and shared with any other process of the same file) and anonymous memory (heaps); a " +
      "just-built executable, all of it in the page cache, shows ~5 MB more file pages per bp process than one " +
      "started cold (the kernel maps cached neighbours of each page touched; bench/memory.ts drops the cache " +
      "first). bp: " +
      "broker (pid from broker-locator.json) and janitor; agent-browser: the session daemon (pid file in its socket " +
      "dir); playwright-cli: the session daemon (node …/cliDaemon.js). Idle = after the session opened its first " +
      "tab; after = when every scenario has run.",
  );
}

export async function memory(ctx: Ctx, phase: "idle" | "after the run"): Promise<void> {
  const section = `Memory (${phase})`;
  const daemonRow = ctx.results.row(section, "broker / daemon RSS, MB", "MB");
  const janitorRow = ctx.results.row(section, "janitor RSS, MB", "MB");
  const totalRow = ctx.results.row(section, "helper processes total, RSS, MB", "MB");
  const pssRow = ctx.results.row(section, "helper processes total, PSS, MB", "MB");
  const rows = [daemonRow, janitorRow, totalRow, pssRow];
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
      let pss = 0;
      for (const p of procs) {
        const mb = rssMb(p.pid);
        if (mb === undefined) continue;
        total += mb;
        pss += pssMb(p.pid) ?? 0;
        cell(p.label === "janitor" ? janitorRow : daemonRow, id).values.push(mb);
      }
      cell(totalRow, id).values.push(total);
      cell(pssRow, id).values.push(pss);
    }
  }
  ctx.log(
    `  ${section}: ${[...found].map(([id, p]) => `${id} ${p.map((x) => `${x.label}=${x.pid}`).join(" ")}`).join(", ")}`,
  );
}
