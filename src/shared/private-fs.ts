import { chmodSync, closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { BpError } from "./errors.ts";

/**
 * Private state lives in directories only this OS user can enter. A symlink or a
 * directory owned by someone else could redirect our socket or token, so both are refused.
 */
export function ensurePrivateDir(path: string): void {
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw unusableDir(path, `Cannot create state directory ${path}: ${(err as Error).message}`);
  }
  const st = lstatSync(path);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw unusableDir(path, `State directory ${path} is not a plain directory; refusing to use it.`);
  }
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) {
    throw unusableDir(path, `State directory ${path} belongs to another user; refusing to use it.`);
  }
  if ((st.mode & 0o077) !== 0 && process.platform !== "win32") chmodSync(path, 0o700);
}

function unusableDir(path: string, message: string): BpError {
  return new BpError("internal_error", message, {
    context: { path },
    remediation: { code: "fix_state_directory", message: `Remove or repair ${path} (it must be a directory of this user), or set BROWSER_PILOT_HOME to another directory.`, actionRequired: true },
  });
}

/** Reads a small private file; returns undefined when absent, refuses symlinks and foreign owners. */
export function readPrivateFile(path: string, maxBytes = 64 * 1024): string | undefined {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink() || !st.isFile()) return undefined;
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) return undefined;
  if (st.size > maxBytes) return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Atomic write: readers see the old file or the new one, never half of either. */
export function writePrivateFileAtomic(path: string, contents: string): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, contents);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** O_EXCL create: succeeds for exactly one racer. Returns false when the file exists. */
export function createExclusive(path: string, contents: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, contents);
  } finally {
    closeSync(fd);
  }
  return true;
}
