import { statSync, unlinkSync } from "node:fs";
import { createExclusive, readPrivateFile } from "../shared/private-fs.ts";
import { isSameProcessAlive } from "../shared/process-identity.ts";

/**
 * The broker's lifetime lock (pid + start time): its holder owns socket and locator; reclaimed only from a provably
 * gone process.
 */
export function acquireOwnerLock(path: string, identity: string): boolean {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createExclusive(path, JSON.stringify({ identity, createdAt: new Date().toISOString() }))) return true;
    const text = readPrivateFile(path);
    let owner: string | undefined;
    try {
      owner = (JSON.parse(text ?? "") as { identity?: string }).identity;
    } catch {
      owner = undefined;
    }
    if (owner !== undefined && isSameProcessAlive(owner)) return false;
    // An unreadable lock may be one a racer created but has not written yet.
    if (owner === undefined && recentlyModified(path)) return false;
    try {
      unlinkSync(path);
    } catch {
      // a racer removed it first; try again
    }
  }
  return false;
}

export function releaseOwnerLock(path: string, identity: string): void {
  if (readPrivateFile(path)?.includes(identity)) {
    try {
      unlinkSync(path);
    } catch {
      // gone
    }
  }
}

function recentlyModified(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < 5000;
  } catch {
    return false;
  }
}
