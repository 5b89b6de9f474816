/**
 * Saved browser states (`bp state`): cookies and localStorage in private files under `<home>/state/<client key>/`; they
 * outlive the broker (a login once serves later runs), and other keys never see them.
 */
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Protocol } from "devtools-protocol";
import { BpError } from "../shared/errors.ts";
import { ensurePrivateDir, readPrivateFile, writePrivateFileAtomic } from "../shared/private-fs.ts";

export const STATE_MAX_BYTES = 32 * 1024 * 1024;
export const MAX_STATES = 100;

export interface SavedState {
  version: 1;
  savedAt: string;
  cookies: Protocol.Network.CookieParam[];
  /** Origin → [key, value] pairs. */
  localStorage: Record<string, [string, string][]>;
}

function dirOf(home: string, key: string): string {
  return join(home, "state", key);
}

function fileOf(home: string, key: string, name: string): string {
  return join(dirOf(home, key), `${name}.json`);
}

export function stateExists(home: string, key: string, name: string): boolean {
  try {
    return lstatSync(fileOf(home, key, name)).isFile();
  } catch {
    return false;
  }
}

export function writeState(home: string, key: string, name: string, s: SavedState): void {
  const json = JSON.stringify(s);
  if (Buffer.byteLength(json) > STATE_MAX_BYTES)
    throw new BpError("quota_exceeded", `The state would hold more than ${STATE_MAX_BYTES} bytes.`, {
      context: { quota: "state_bytes", limitBytes: STATE_MAX_BYTES },
    });
  ensurePrivateDir(join(home, "state"));
  ensurePrivateDir(dirOf(home, key));
  if (!stateExists(home, key, name) && listNames(home, key).length >= MAX_STATES) {
    throw new BpError(
      "quota_exceeded",
      `An agent may keep at most ${MAX_STATES} saved states; remove one with 'bp state remove'.`,
      { context: { quota: "states", limit: MAX_STATES } },
    );
  }
  writePrivateFileAtomic(fileOf(home, key, name), json);
}

export function readState(home: string, key: string, name: string): SavedState {
  const text = readPrivateFile(fileOf(home, key, name), STATE_MAX_BYTES);
  if (text === undefined) throw notFound(name);
  try {
    const s = JSON.parse(text) as SavedState;
    if (s.version !== 1 || !Array.isArray(s.cookies) || typeof s.localStorage !== "object") throw new Error("shape");
    return s;
  } catch {
    throw new BpError("artifact_not_found", `The saved state '${name}' is unreadable; save it again.`, {
      context: { name, reason: "unreadable" },
    });
  }
}

export function removeState(home: string, key: string, name: string): void {
  if (!stateExists(home, key, name)) throw notFound(name);
  rmSync(fileOf(home, key, name), { force: true });
}

function listNames(home: string, key: string): string[] {
  try {
    return readdirSync(dirOf(home, key))
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.slice(0, -5))
      .sort();
  } catch {
    return [];
  }
}

export function listStates(home: string, key: string): { name: string; state: SavedState }[] {
  const out: { name: string; state: SavedState }[] = [];
  for (const name of listNames(home, key)) {
    try {
      out.push({ name, state: readState(home, key, name) });
    } catch {
      // An unreadable file is skipped in the list; loading it names the problem.
    }
  }
  return out;
}

function notFound(name: string): BpError {
  return new BpError("artifact_not_found", `No saved state '${name}'. Run 'bp state list'.`, { context: { name } });
}
