/** Fake browser profiles for discovery's unit tests: what Chrome leaves on disk, without a browser. */
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isPidAlive } from "../../src/discovery/process-state.ts";

/** A pid no process has right now; counting down from Linux's pid_max ceiling finds one fast. */
export function deadPid(): number {
  for (let pid = 4_194_000; pid > 1; pid -= 1) if (!isPidAlive(pid)) return pid;
  throw new Error("no free pid found");
}

export interface FakeProfileOptions {
  portFile?: string;
  /** SingletonLock symlink target, e.g. `${os.hostname()}-${process.pid}`. */
  lock?: string;
  /** Backdate the port file so it predates the lock, like one left by an earlier run. */
  portFileAgeMs?: number;
}

export async function makeFakeProfile(dir: string, opts: FakeProfileOptions = {}): Promise<string> {
  await fsp.mkdir(dir, { recursive: true });
  if (opts.portFile !== undefined) {
    const file = path.join(dir, "DevToolsActivePort");
    await fsp.writeFile(file, opts.portFile);
    if (opts.portFileAgeMs !== undefined) {
      const when = new Date(Date.now() - opts.portFileAgeMs);
      await fsp.utimes(file, when, when);
    }
  }
  if (opts.lock !== undefined) await fsp.symlink(opts.lock, path.join(dir, "SingletonLock"));
  return dir;
}

export function liveLock(): string {
  return `${os.hostname()}-${process.pid}`;
}

export function deadLock(): string {
  return `${os.hostname()}-${deadPid()}`;
}

/** A temp root that `cleanup()` removes; tests use it as a fake HOME. */
export async function tempRoot(prefix: string): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `bp-${prefix}-`));
  return { dir, cleanup: () => fsp.rm(dir, { recursive: true, force: true }) };
}
