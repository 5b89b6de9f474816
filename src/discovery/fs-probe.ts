/** Small filesystem probes: discovery never opens a socket (it can raise Chrome's "Allow remote debugging" dialog). */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

type Env = Record<string, string | undefined>;

export async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await fsp.stat(p)).isDirectory();
  } catch {
    return false;
  }
}

export async function isExecutable(p: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    const st = await fsp.stat(p);
    if (!st.isFile()) return false;
    // Windows has no execute bit; existence of the .exe is the best signal there.
    if (platform !== "win32") await fsp.access(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Synchronous twin of isExecutable for test fixtures and `bp launch` (a few stats cost microseconds). */
export function isExecutableSync(p: string, platform: NodeJS.Platform): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    if (platform !== "win32") fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Absolute PATH directories in order, deduplicated; relative entries depend on the cwd and could pick up a planted
 * binary.
 */
export function pathDirs(env: Env, platform: NodeJS.Platform): string[] {
  const raw = platform === "win32" ? (env.Path ?? env.PATH ?? "") : (env.PATH ?? "");
  const sep = platform === "win32" ? ";" : ":";
  const isAbs = platform === "win32" ? path.win32.isAbsolute : path.posix.isAbsolute;
  return [...new Set(raw.split(sep).filter((d) => d.length > 0 && isAbs(d)))];
}

/** Where a definition's binary may be: PATH first (the user's choice), then fixed paths. */
export function executableCandidates(
  pathNames: readonly string[],
  executables: readonly string[],
  env: Env,
  platform: NodeJS.Platform,
): string[] {
  const join = platform === "win32" ? path.win32.join : path.posix.join;
  const dirs = pathDirs(env, platform);
  const fromPath = pathNames.flatMap((name) => dirs.map((dir) => join(dir, name)));
  return [...new Set([...fromPath, ...executables])];
}

export async function firstExecutable(
  candidates: readonly string[],
  platform: NodeJS.Platform,
): Promise<string | undefined> {
  // Probe in parallel but answer in list order, so the result is deterministic.
  const found = await Promise.all(candidates.map((c) => isExecutable(c, platform)));
  const index = found.indexOf(true);
  return index === -1 ? undefined : candidates[index];
}
