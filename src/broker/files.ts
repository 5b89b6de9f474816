/**
 * Where file-producing commands put their output, and how they write it. Placement: an explicit path, else
 * BROWSER_PILOT_OUTPUT_DIR (a jail: nothing lands outside it), else the CLI's cwd. Writing: O_EXCL temporary name,
 * 0600, then rename: no half files, no planted links.
 */
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { BpError, invalidArgument } from "../shared/errors.ts";
import { isPolicyFile, refuseWrite } from "./policy/current.ts";

export interface OutputPlace {
  cwd?: string | undefined;
  outputDir?: string | undefined;
}

export interface WrittenFile {
  file: string;
  mimeType: string;
  sizeBytes: number;
}

/** `2024-05-01T12-30-05`: the UTC time, safe in file names on every OS. */
export function fileTimestamp(date = new Date()): string {
  return date.toISOString().slice(0, 19).replace(/:/g, "-");
}

/** The absolute path an output goes to; `defaultName` is made unique (-2, -3…); escapes are invalid_argument "file". */
export function resolveOutputPath(requested: string | undefined, defaultName: string, place: OutputPlace): string {
  const jail = place.outputDir ? checkedOutputDir(place.outputDir) : undefined;
  const name = requested ?? defaultName;
  if (name === "" || name.includes("\0"))
    throw invalidArgument("file", "The file name is empty or contains a NUL byte.");
  const target = isAbsolute(name) ? resolve(name) : resolve(jail ?? checkedCwd(place.cwd), name);
  if (name.endsWith("/") || name.endsWith(sep))
    throw invalidArgument("file", `'${name}' names a directory; give a file name.`);
  if (jail !== undefined && !inside(jail, target)) {
    throw invalidArgument(
      "file",
      `'${name}' is outside BROWSER_PILOT_OUTPUT_DIR (${jail}); outputs must stay inside it.`,
      { outputDir: jail },
    );
  }
  const parent = dirname(target);
  let parentStat;
  try {
    parentStat = statSync(parent);
  } catch {
    throw invalidArgument("file", `Directory ${parent} does not exist.`);
  }
  if (!parentStat.isDirectory()) throw invalidArgument("file", `${parent} is not a directory.`);
  if (jail !== undefined) {
    // Symlinked directories are fine while they resolve inside the jail; one that leads out is an escape.
    const realParent = realpathSync(parent);
    if (!within(realpathSync(jail), realParent)) {
      throw invalidArgument("file", `'${name}' leads outside BROWSER_PILOT_OUTPUT_DIR through a symbolic link.`, {
        outputDir: jail,
      });
    }
  }
  const final = requested === undefined ? uniqueName(target) : target;
  if (isPolicyFile(final)) throw refuseWrite();
  checkFinal(final, name);
  return final;
}

/** Failures that come from the path the agent chose (too long, read-only, not a directory). */
const PATH_ERRORS = new Set(["ENAMETOOLONG", "EACCES", "EPERM", "EROFS", "ENOENT", "ENOTDIR", "EISDIR", "ELOOP"]);

function writeError(what: string, err: unknown): BpError {
  const code = (err as NodeJS.ErrnoException).code;
  const message = `${what}: ${(err as Error).message}`;
  return code !== undefined && PATH_ERRORS.has(code)
    ? invalidArgument("file", message, { reason: code })
    : new BpError("internal_error", message, { context: { field: "file" } });
}

export interface WriteOptions {
  noClobber?: boolean;
  replace?: boolean;
}

/** Writes `data` to `path` atomically, 0600; an existing explicit name is refused unless `replace`. */
export function writeOutputFile(
  path: string,
  data: Uint8Array,
  mimeType: string,
  opts: WriteOptions = {},
): WrittenFile {
  if (isPolicyFile(path)) throw refuseWrite();
  checkFinal(path, path);
  const tmp = join(
    dirname(path),
    `.${basename(path).slice(0, 100)}.${process.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`,
  );
  let fd: number;
  try {
    // "wx" is O_CREAT|O_EXCL: it fails on any existing entry, a symlink included.
    fd = openSync(tmp, "wx", 0o600);
  } catch (err) {
    throw writeError(`Cannot create ${tmp}`, err);
  }
  let final = path;
  try {
    try {
      fchmodSync(fd, 0o600);
      let off = 0;
      while (off < data.length) off += writeSync(fd, data, off, data.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (opts.noClobber) final = linkFree(tmp, path);
    // rename replaces a link at the final path itself, never what it points to.
    else if (opts.replace) renameSync(tmp, path);
    else linkOnce(tmp, path);
  } catch (err) {
    if (err instanceof BpError) throw err;
    throw writeError(`Cannot write ${path}`, err);
  } finally {
    rmSync(tmp, { force: true });
  }
  return { file: final, mimeType, sizeBytes: data.length };
}

/** Takes `path` only while it is free: link(2) fails on an existing name instead of replacing it. */
function linkOnce(tmp: string, path: string): void {
  try {
    linkSync(tmp, path);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST" && !exists(path)) {
      // File systems without hard links: take the name, it is still free.
      renameSync(tmp, path);
      return;
    }
  }
  throw invalidArgument("file", `${path} already exists; choose another name, or pass --force to replace it.`, {
    reason: "exists",
  });
}

/** link(2) fails on an existing name instead of replacing it: the first free candidate wins. */
function linkFree(tmp: string, path: string): string {
  for (let n = 1; n < 1000; n++) {
    const candidate = candidateName(path, n);
    try {
      linkSync(tmp, candidate);
      return candidate;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") continue;
      // File systems without hard links: take the name if it is still free.
      if (exists(candidate)) continue;
      renameSync(tmp, candidate);
      return candidate;
    }
  }
  throw new BpError("internal_error", `No free file name near ${path}.`, { context: { field: "file" } });
}

export function siblingPath(path: string, suffix: string): string {
  const dir = dirname(path);
  const name = basename(path);
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  return join(dir, `${stem}${suffix}`);
}

export function checkFinal(path: string, shown: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (st.isSymbolicLink())
    throw invalidArgument("file", `'${shown}' is a symbolic link; refusing to write through it.`);
  if (!st.isFile()) throw invalidArgument("file", `'${shown}' exists and is not a regular file.`);
}

function checkedOutputDir(dir: string): string {
  if (!isAbsolute(dir)) throw invalidArgument("outputDir", "BROWSER_PILOT_OUTPUT_DIR must be an absolute path.");
  const abs = resolve(dir);
  try {
    mkdirSync(abs, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw invalidArgument("outputDir", `Cannot create BROWSER_PILOT_OUTPUT_DIR ${abs}: ${(err as Error).message}`);
  }
  return abs;
}

function checkedCwd(cwd: string | undefined): string {
  if (cwd === undefined || !isAbsolute(cwd)) {
    throw invalidArgument(
      "file",
      "The CLI did not send its working directory; give an absolute path or set BROWSER_PILOT_OUTPUT_DIR.",
    );
  }
  return resolve(cwd);
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && within(dir, path);
}

function within(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function uniqueName(path: string): string {
  for (let n = 1; n < 1000; n++) {
    const candidate = candidateName(path, n);
    if (!exists(candidate)) return candidate;
  }
  return candidateName(path, 1000 + Math.floor(Math.random() * 1e6));
}

/** n = 1: the path itself; then `stem-n.ext`. */
function candidateName(path: string, n: number): string {
  if (n === 1) return path;
  const name = basename(path);
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : "";
  return join(dirname(path), `${stem}-${n}${ext}`);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
