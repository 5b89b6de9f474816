/**
 * CPU spent by a part: the harness itself, every `bp` it ran (from their resource usage at
 * exit), and the long-lived processes under the part's directories (brokers, janitors,
 * Chromium and its renderers), sampled from /proc. Sampling misses at most the last quarter
 * second of each long-lived process, so the figure is a slight undercount.
 */
import { readFileSync, readdirSync } from "node:fs";

const TICKS_PER_SECOND = 100;
const SAMPLE_MS = 250;

const roots = new Set<string>();
/** `bp` invocations are counted from their own resource usage, not sampled. */
const cliPids = new Set<number>();
let cliMicros = 0;

/** Processes whose command line or environment names this directory count as the part's. */
export function trackRoot(root: string): void {
  roots.add(root);
}

export function cliStarted(pid: number): void {
  cliPids.add(pid);
}

export function cliEnded(pid: number, us: number): void {
  cliMicros += us;
  cliPids.delete(pid);
}

function ticksOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

function ours(pid: string, known: Map<string, boolean>): boolean {
  const cached = known.get(pid);
  if (cached !== undefined) return cached;
  let mine = false;
  try {
    const text = `${readFileSync(`/proc/${pid}/cmdline`, "utf8")}\0${readFileSync(`/proc/${pid}/environ`, "utf8")}`;
    for (const r of roots) if (text.includes(r)) mine = true;
  } catch {
    return false;
  }
  known.set(pid, mine);
  return mine;
}

export interface CpuMeter {
  /** CPU seconds so far. */
  stop(): number;
}

export function startCpuMeter(): CpuMeter {
  const self = process.cpuUsage();
  const cliStart = cliMicros;
  const seen = new Map<string, number>();
  const known = new Map<string, boolean>();
  const scan = () => {
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid) || Number(pid) === process.pid || cliPids.has(Number(pid))) continue;
      if (!ours(pid, known)) continue;
      const t = ticksOf(pid);
      if (t !== undefined) seen.set(pid, Math.max(seen.get(pid) ?? 0, t));
    }
  };
  const timer = setInterval(scan, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      scan();
      const used = process.cpuUsage(self);
      const sampled = [...seen.values()].reduce((a, b) => a + b, 0) / TICKS_PER_SECOND;
      return (used.user + used.system + cliMicros - cliStart) / 1e6 + sampled;
    },
  };
}
