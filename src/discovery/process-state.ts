/** Is the browser owning a user-data dir running? From Chrome's singleton lock: no process listing, no socket. */
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isDeadProcessState } from "../shared/process-identity.ts";
import type { ProcessState } from "./types.ts";

export interface ProcessProbe {
  state: ProcessState;
  pid?: number;
  /** When the running browser took its lock (ms): an older DevToolsActivePort is from an earlier run. */
  startedAtMs?: number;
}

export interface LockOwner {
  hostname: string;
  pid: number;
}

/** SingletonLock's target is `<hostname>-<pid>`; hostnames may contain '-', pids may not. */
export function parseSingletonLockTarget(target: string): LockOwner | undefined {
  const match = /^(.+)-(\d+)$/.exec(target);
  if (!match?.[1] || !match[2]) return undefined;
  const pid = Number(match[2]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { hostname: match[1], pid };
}

export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // A crashed browser its parent never reaped is a zombie: it holds nothing any more.
  return !isDeadProcessState(pid);
}

export async function probeProcessState(
  userDataDir: string,
  platform: NodeJS.Platform = process.platform,
): Promise<ProcessProbe> {
  return platform === "win32" ? probeWindowsLock(userDataDir) : probeSingletonLock(userDataDir);
}

async function probeSingletonLock(userDataDir: string): Promise<ProcessProbe> {
  const lock = path.join(userDataDir, "SingletonLock");
  let target: string;
  let startedAtMs: number;
  try {
    target = await fsp.readlink(lock);
    startedAtMs = (await fsp.lstat(lock)).mtimeMs;
  } catch (error) {
    // Chrome removes the lock on clean exit (ENOENT: closed); anything else we cannot interpret.
    return { state: (error as NodeJS.ErrnoException).code === "ENOENT" ? "not_running" : "unknown" };
  }
  const owner = parseSingletonLockTarget(target);
  if (!owner) return { state: "unknown" };
  // A lock from another host (shared home): nothing runs here, and its pid means nothing locally.
  if (owner.hostname !== os.hostname()) return { state: "not_running" };
  // A crash leaves the lock behind; the dead pid is what tells us the browser is gone.
  if (!isPidAlive(owner.pid)) return { state: "not_running" };
  return { state: "running", pid: owner.pid, startedAtMs };
}

async function probeWindowsLock(userDataDir: string): Promise<ProcessProbe> {
  // Windows deletes `lockfile` when the browser exits, even after a crash; its timestamps are not trusted.
  try {
    await fsp.lstat(path.join(userDataDir, "lockfile"));
    return { state: "running" };
  } catch (error) {
    return { state: (error as NodeJS.ErrnoException).code === "ENOENT" ? "not_running" : "unknown" };
  }
}
