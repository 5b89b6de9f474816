import type * as NodeFs from "node:fs";

/** True inside a `bun build --compile` executable, whose modules live in a virtual /$bunfs. */
export function isCompiled(): boolean {
  return import.meta.path.includes("$bunfs") || import.meta.path.includes("~BUN");
}

/** argv prefix that starts this same program again (for broker and janitor children). */
export function selfCommand(): string[] {
  return isCompiled() ? [process.execPath] : [process.execPath, Bun.main];
}

/**
 * Identity of the installed executable: its real path plus size and mtime. A rebuilt or
 * different installation gets a different identity, so it cannot stop another's broker.
 */
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
