import type * as NodeFs from "node:fs";

/** Loaded on first use: node:fs costs each CLI process ~1.5 ms, and a warm call needs none of this. */
function readText(path: string): string {
  return (import.meta.require("node:fs") as typeof NodeFs).readFileSync(path, "utf8");
}

/** Alive means able to run: a zombie still answers kill(pid, 0) but never serves again. */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return !isDeadProcessState(pid);
}

/** Linux: state Z (zombie) or X (dead) in /proc/<pid>/stat. Elsewhere: cannot tell, so no. */
export function isDeadProcessState(pid: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    const stat = readText(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return false;
  }
}

/** Linux: stopped by a signal or traced (state T or t): alive, but it runs nothing until resumed. */
export function isStopped(pid: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    const stat = readText(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "T" || state === "t";
  } catch {
    return false;
  }
}

/** pid + kernel start time names one process (pids are reused): field 22 of /proc/<pid>/stat; undefined elsewhere. */
export function processStartTime(pid: number): string | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const stat = readText(`/proc/${pid}/stat`);
    // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return rest[19];
  } catch {
    return undefined;
  }
}

export function processIdentity(pid: number): string {
  return `${pid}:${processStartTime(pid) ?? "unknown"}`;
}

export function isSameProcessAlive(identity: string): boolean {
  const [pidText, start] = identity.split(":");
  const pid = Number(pidText);
  if (!isPidAlive(pid)) return false;
  if (start === undefined || start === "unknown") return true;
  const now = processStartTime(pid);
  return now === undefined || now === start;
}
