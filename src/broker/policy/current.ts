/**
 * The host policy in force (`$BROWSER_PILOT_HOME/policy.json`), re-read when its stat changes. A file that does not
 * parse or that others may write fails closed (policy_invalid); no file allows all. Module state, so the network layer
 * needs no broker.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import {
  parsePolicy,
  POLICY_FILE,
  policyInvalid,
  rulesFor,
  summarize,
  type Effective,
  type Policy,
  type PolicySummary,
} from "../../protocol/policy.ts";
import { statProblem } from "../../protocol/policy-file.ts";
import { BpError } from "../../shared/errors.ts";

type State = { kind: "none" } | { kind: "ok"; policy: Policy } | { kind: "invalid"; error: BpError };

let state: State = { kind: "none" };
/** The rules the network keeps enforcing while the file is broken: a broken file never loosens them. */
let lastValid: Policy | undefined;
let seen = "";
let path = "";

export function policyPath(home: string): string {
  return join(home, POLICY_FILE);
}

export function policyHome(home: string): void {
  path = policyPath(home);
  seen = "";
  state = { kind: "none" };
  lastValid = undefined;
}

/** Called before every command: re-reads the file if its stat changed; true when the policy in force changed. */
export async function refreshPolicy(): Promise<boolean> {
  if (path === "") return false;
  let st;
  try {
    st = statSync(path, { bigint: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return set("none", { kind: "none" });
    return set(`err:${code}`, {
      kind: "invalid",
      error: policyInvalid("policy", `the file cannot be read (${code ?? "error"}).`),
    });
  }
  const stamp = `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.mode}:${st.uid}`;
  if (stamp === seen) return false;
  const problem = statProblem(st);
  if (problem) return set(stamp, { kind: "invalid", error: problem });
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return set(stamp, {
      kind: "invalid",
      error: policyInvalid("policy", `the file cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"}).`),
    });
  }
  try {
    const policy = await parsePolicy(text);
    lastValid = policy;
    return set(stamp, { kind: "ok", policy });
  } catch (err) {
    return set(stamp, {
      kind: "invalid",
      error: err instanceof BpError ? err : policyInvalid("policy", "it could not be checked."),
    });
  }
}

function set(stamp: string, next: State): boolean {
  seen = stamp;
  const before = state;
  state = next;
  return (
    digestOf(before) !== digestOf(next) ||
    (before.kind === "invalid" && next.kind === "invalid" && before.error.message !== next.error.message)
  );
}

function digestOf(s: State): string {
  return s.kind === "ok" ? s.policy.digest : s.kind;
}

export function currentPolicy(): Policy | undefined {
  if (state.kind === "invalid") throw state.error;
  return state.kind === "ok" ? state.policy : undefined;
}

/** The rules the network enforces for a key (the last valid file's while the file is broken). */
export function netRules(key: string | undefined): Effective | undefined {
  const p = state.kind === "ok" ? state.policy : state.kind === "invalid" ? lastValid : undefined;
  if (!p || key === undefined) return undefined;
  return rulesFor(p, key);
}

/** Whether any key has origin rules (then new pages are held at start: policy/net.ts). */
export function anyIntercepts(): boolean {
  const p = state.kind === "ok" ? state.policy : state.kind === "invalid" ? lastValid : undefined;
  if (!p) return false;
  return [p.global, ...Object.values(p.keys)].some((r) => r.block.length > 0 || r.allow !== undefined);
}

export function policyIntercepts(key: string | undefined): boolean {
  const r = netRules(key);
  return r !== undefined && (r.block.length > 0 || r.allow !== undefined);
}

/** The file bp must never write: an output path that is it (through any link in its directories) is refused. */
export function isPolicyFile(p: string): boolean {
  if (path === "") return false;
  if (p === path) return true;
  if (basename(p) !== POLICY_FILE) return false;
  try {
    return realpathSync(dirname(p)) === realpathSync(dirname(path));
  } catch {
    return false;
  }
}

export function refuseWrite(): BpError {
  return new BpError("policy_denied", "That path is the host policy file; bp never writes it.", {
    context: { rule: "policy_file", field: "file" },
  });
}

export function policyStatus(key: string): PolicySummary | undefined {
  const p = currentPolicy();
  return p ? summarize(p, key) : undefined;
}

/** The key's downloads rule: "off", the largest download in bytes, or undefined (no limit). */
export function downloadLimit(key: string): "off" | number | undefined {
  const d = netRules(key)?.downloads;
  return d === undefined || d === "on" ? undefined : d === "off" ? "off" : d.maxBytes;
}
