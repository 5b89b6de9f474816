/**
 * Process helpers for the benchmark: run one CLI command as a whole process (spawn → exit, which
 * is what an agent pays), and read /proc for memory and for finding the processes we started.
 *
 * Every process the bench spawns carries BENCH_MARK in its environment. Daemons and browsers
 * inherit it, so at the end we can find exactly our leftovers by pid and stop only those.
 */
import { readFileSync, readdirSync } from "node:fs";

export const BENCH_MARK = `bp-bench-${process.pid}-${Date.now().toString(36)}`;

export interface Exec {
  /** Wall time from spawn to exit, in milliseconds. */
  ms: number;
  /** CPU time the process used (user + system), in milliseconds: on a shared machine steadier than the wall time. */
  cpuMs?: number;
  code: number;
  out: string;
  err: string;
  timedOut: boolean;
}

export interface ExecOptions {
  env: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

/** Environment without any Browser Pilot or peer settings from the caller's shell. */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(BROWSER_PILOT_|AGENT_BROWSER_|PLAYWRIGHT_)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, BENCH_MARK, ...extra };
}

/** Collects a stream without blocking exit: a daemon that inherited the pipe must not stall us. */
function collect(stream: ReadableStream<Uint8Array>): { text: () => string; done: Promise<void>; cancel: () => void } {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  const done = (async () => {
    try {
      for (;;) {
        const { done: end, value } = await reader.read();
        if (end) return;
        chunks.push(value);
      }
    } catch {
      // cancelled
    }
  })();
  return {
    text: () => Buffer.concat(chunks).toString("utf8"),
    done,
    cancel: () => void reader.cancel().catch(() => {}),
  };
}

export async function exec(argv: string[], opts: ExecOptions): Promise<Exec> {
  const t0 = performance.now();
  const p = Bun.spawn(argv, { env: opts.env, cwd: opts.cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const out = collect(p.stdout);
  const err = collect(p.stderr);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    p.kill("SIGKILL");
  }, opts.timeoutMs ?? 120_000);
  const code = await p.exited;
  const ms = performance.now() - t0;
  clearTimeout(timer);
  const cpu = p.resourceUsage()?.cpuTime;
  const cpuMs = cpu ? Number(cpu.user + cpu.system) / 1000 : undefined;
  const drained = Promise.all([out.done, err.done]);
  const late = await Promise.race([drained.then(() => false), Bun.sleep(300).then(() => true)]);
  if (late) {
    out.cancel();
    err.cancel();
  }
  return { ms, ...(cpuMs !== undefined ? { cpuMs } : {}), code, out: out.text(), err: err.text(), timedOut };
}

// ---------------------------------------------------------------------------------------------
// /proc
// ---------------------------------------------------------------------------------------------

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Resident memory in MB from /proc/<pid>/status VmRSS, or undefined when gone. */
export function rssMb(pid: number): number | undefined {
  const m = read(`/proc/${pid}/status`)?.match(/^VmRSS:\s+(\d+)\s+kB/m);
  return m?.[1] ? Number(m[1]) / 1024 : undefined;
}

/**
 * Proportional memory in MB from /proc/<pid>/smaps_rollup Pss: each page shared with other processes (an
 * executable's pages two helpers both touched) counted as its share, so the helpers of one tool add up to what
 * they hold between them. Undefined when gone or unreadable.
 */
export function pssMb(pid: number): number | undefined {
  const m = read(`/proc/${pid}/smaps_rollup`)?.match(/^Pss:\s+(\d+)\s+kB/m);
  return m?.[1] ? Number(m[1]) / 1024 : undefined;
}

interface Stat {
  pid: number;
  ppid: number;
  state: string;
}

function stat(pid: number): Stat | undefined {
  const s = read(`/proc/${pid}/stat`);
  if (!s) return undefined;
  // The command name is in parentheses and may contain spaces; fields follow the last ')'.
  const rest = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return { pid, state: rest[0] ?? "?", ppid: Number(rest[1] ?? 0) };
}

/** A zombie counts as gone: this container's PID 1 may never reap it. */
export function alive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== "Z" && s.state !== "X";
}

function allPids(): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

export function cmdline(pid: number): string {
  return (read(`/proc/${pid}/cmdline`) ?? "").split("\0").join(" ").trim();
}

export function descendants(root: number): number[] {
  const kids = new Map<number, number[]>();
  for (const pid of allPids()) {
    const s = stat(pid);
    if (!s) continue;
    const list = kids.get(s.ppid) ?? [];
    list.push(pid);
    kids.set(s.ppid, list);
  }
  const out: number[] = [];
  const stack = [...(kids.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop() ?? 0;
    out.push(pid);
    stack.push(...(kids.get(pid) ?? []));
  }
  return out;
}

/** Live processes whose environment carries this run's mark, optionally filtered by cmdline. */
export function markedPids(match?: (cmd: string, environ: string) => boolean): number[] {
  const out: number[] = [];
  for (const pid of allPids()) {
    if (pid === process.pid || !alive(pid)) continue;
    const environ = read(`/proc/${pid}/environ`);
    if (!environ?.includes(`BENCH_MARK=${BENCH_MARK}\0`) && !environ?.endsWith(`BENCH_MARK=${BENCH_MARK}`)) continue;
    if (match && !match(cmdline(pid), environ)) continue;
    out.push(pid);
  }
  return out;
}

export async function waitGone(pids: number[], timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!pids.some(alive)) return true;
    await Bun.sleep(50);
  }
  return !pids.some(alive);
}

/** Signal only processes that carry our mark (never anything found by name alone). */
export function signalMarked(pids: number[], signal: NodeJS.Signals): void {
  const ours = new Set(markedPids());
  for (const pid of pids) {
    if (!ours.has(pid)) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------------------------

export interface Stats {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function stats(values: number[]): Stats | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
  return { median, min: s[0] ?? 0, max: s[s.length - 1] ?? 0, n: s.length };
}
