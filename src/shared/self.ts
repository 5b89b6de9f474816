import type * as NodeFs from "node:fs";

/** True inside a `bun build --compile` executable, whose modules live in a virtual /$bunfs. */
export function isCompiled(): boolean {
  return import.meta.path.includes("$bunfs") || import.meta.path.includes("~BUN");
}

/**
 * argv prefix that starts this program again; after an upgrade replaced our file, /proc/self/exe (the running build).
 */
export function selfCommand(): { cmd: string[]; argv0: string } {
  if (!isCompiled()) return { cmd: [process.execPath, Bun.main], argv0: process.execPath };
  const shown = process.execPath.replace(/ \(deleted\)$/, "");
  const replaced =
    process.platform === "linux" && (shown !== process.execPath || executableIdentity().identity !== startIdentity());
  return { cmd: [replaced ? "/proc/self/exe" : shown], argv0: shown };
}

let atStart: string | undefined;

export function startIdentity(): string {
  atStart ??= executableIdentity().identity;
  return atStart;
}

export function executableReplaced(): boolean {
  return process.execPath.endsWith(" (deleted)") || executableIdentity().identity !== startIdentity();
}

/** Identity of the installed executable (real path, size, mtime): another build cannot stop this one's broker. */
export function executableIdentity(): { path: string; identity: string } {
  const file = isCompiled() ? process.execPath : Bun.main;
  let path = file;
  let fingerprint = file;
  try {
    // Loaded here only: node:fs costs each CLI process ~1.5 ms, and only 'disconnect' asks this.
    const { realpathSync, statSync } = import.meta.require("node:fs") as typeof NodeFs;
    path = realpathSync(file);
    const st = statSync(path);
    fingerprint = `${path}\0${st.size}\0${st.mtimeMs}\0${st.ino}`;
  } catch {
    // Unreadable executable: identity still names the path, which is the best we have.
  }
  return { path, identity: `executable:${new Bun.CryptoHasher("sha256").update(fingerprint).digest("hex")}` };
}
