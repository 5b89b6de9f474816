import {
  chmodSync,
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { BpError } from "./errors.ts";

/**
 * Private state lives in directories only this user can enter (a symlink or foreign owner could redirect our socket or
 * token). True when it created the directory.
 */
export function ensurePrivateDir(path: string): boolean {
  let created = false;
  try {
    created = mkdirSync(path, { recursive: true, mode: 0o700 }) !== undefined;
  } catch (err) {
    throw stateDirectoryError(path, err, "create the state directory");
  }
  const st = lstatSync(path);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw unusableDir(path, `State directory ${path} is not a plain directory; refusing to use it.`);
  }
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) {
    throw unusableDir(path, `State directory ${path} belongs to another user; refusing to use it.`);
  }
  if ((st.mode & 0o077) !== 0 && process.platform !== "win32") {
    try {
      chmodSync(path, 0o700);
    } catch (err) {
      throw stateDirectoryError(path, err, "make the state directory private");
    }
  }
  return created;
}

function unusableDir(path: string, message: string, reason?: string): BpError {
  return new BpError("state_directory_unusable", message, {
    context: { path, ...(reason ? { reason } : {}) },
    remediation: {
      code: "fix_state_directory",
      message: `Free space on, make writable, remove or repair ${path} (it must be a writable directory of this user), or set BROWSER_PILOT_HOME to another directory.`,
      actionRequired: true,
    },
  });
}

const FS_REASONS: Record<string, string> = {
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EEXIST: "a file is in the way",
  ENOTDIR: "a file is in the way",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "a directory is in the way",
  ENAMETOOLONG: "name too long",
  ELOOP: "too many symbolic links",
};

/** A file-system failure on bp's own state is the environment's: a documented code naming the path and the fix. */
export function stateDirectoryError(path: string, err: unknown, doing: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (err instanceof BpError || code === undefined || !(code in FS_REASONS)) return err;
  const reason = FS_REASONS[code] ?? code;
  return unusableDir(path, `Cannot ${doing} ${path}: ${reason} (${code}).`, code);
}

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
    closeSync(fd);
    renameSync(tmp, path);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // closed
    }
    try {
      unlinkSync(tmp);
    } catch {
      // gone
    }
    throw err;
  }
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
  } catch (err) {
    // A full disk takes the name but not the bytes: an empty lock left behind would stall every start.
    closeSync(fd);
    try {
      unlinkSync(path);
    } catch {
      // gone
    }
    throw err;
  }
  closeSync(fd);
  return true;
}
