/**
 * The broker's per-request records (BROWSER_PILOT_PHASES, src/cdp/phases.ts) as tests read them:
 * one JSON line per request, appended after its reply was written.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { BpEnv } from "./bp.ts";

/** [epoch ms, label, extra]: `request` carries the command, `send` and `reply` the CDP calls. */
export type TraceEntry = [number, string, unknown?];

/** Turns the records on for a test env's broker (set before it starts); the file they go to. */
export function traceTo(env: BpEnv): string {
  const file = join(env.home, "..", "phases.jsonl");
  env.env.BROWSER_PILOT_PHASES = file;
  return file;
}

/** The `n`th record of a `command` request, waiting up to 2 s for it to be written; undefined if it never is. */
export async function nthTrace(file: string, command: string, n: number): Promise<TraceEntry[] | undefined> {
  let found: TraceEntry[][] = [];
  for (let i = 0; i < 100 && found.length < n; i++) {
    if (i) await Bun.sleep(20);
    found = existsSync(file)
      ? readFileSync(file, "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as TraceEntry[])
          .filter((l) => l.some((e) => e[1] === "request" && e[2] === command))
      : [];
  }
  return found[n - 1];
}
