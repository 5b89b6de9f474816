/**
 * Reading the policy file the same way on both sides: the broker (src/broker/policy/current.ts,
 * which re-reads it only when its stat moves) and the CLI's `bp schema` and help, which mark
 * what the policy removes for the caller's key.
 */
import { readFileSync, statSync, type BigIntStats } from "node:fs";
import type { BpError } from "../shared/errors.ts";
import { parsePolicy, POLICY_FILE, policyInvalid, type Policy } from "./policy.ts";

export const MAX_POLICY_BYTES = 1_000_000;

/** Why a file with this stat cannot be trusted, if it cannot: not a regular file, writable by others, another user's. */
export function statProblem(st: BigIntStats): BpError | undefined {
  if (!st.isFile()) return policyInvalid("policy", "it is not a regular file.");
  if ((st.mode & 0o022n) !== 0n)
    return policyInvalid(
      "mode",
      `other users may write it (mode ${(st.mode & 0o777n).toString(8)}); make it writable by its owner only.`,
    );
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== 0n && st.uid !== BigInt(uid))
    return policyInvalid("owner", "it belongs to another user, who could change it.");
  if (st.size > BigInt(MAX_POLICY_BYTES)) return policyInvalid("policy", "the file is larger than 1 MB.");
  return undefined;
}

/** The home's policy, undefined without a file; throws policy_invalid as the broker would. */
export async function readPolicy(home: string): Promise<Policy | undefined> {
  const path = `${home}/${POLICY_FILE}`;
  let st: BigIntStats;
  try {
    st = statSync(path, { bigint: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw policyInvalid("policy", `the file cannot be read (${code ?? "error"}).`);
  }
  const problem = statProblem(st);
  if (problem) throw problem;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw policyInvalid("policy", `the file cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"}).`);
  }
  return parsePolicy(text);
}
