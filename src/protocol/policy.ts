/**
 * The host policy file, `$BROWSER_PILOT_HOME/policy.json`: its schema (exported by
 * `bp schema policy`) and the checks that turn its text into rules. Written by the host or the
 * person, never by bp. Anything not valid fails closed (policy_invalid, with the field).
 * Matching lives in policy-match.ts; reading the file and enforcing it in src/broker/policy/.
 */
import * as v from "valibot";
import type { PolicySummary } from "./policy-summary.ts";
import { BpError } from "../shared/errors.ts";
import { coversPattern, parseOriginPattern } from "./policy-match.ts";
import { COMMAND_INDEX, findCommand } from "./table.ts";

export const POLICY_FILE = "policy.json";
const MAX_PATTERNS = 256;
const MAX_KEYS = 256;
const MAX_ENTRIES = 128;

const patternList = (what: string) =>
  v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(2048))), v.maxLength(MAX_PATTERNS), v.description(what)));

const downloadsSchema = () =>
  v.optional(
    v.pipe(
      v.union([
        v.picklist(["on", "off"]),
        v.strictObject({
          maxBytes: v.pipe(
            v.number(),
            v.integer(),
            v.minValue(0),
            v.description("Largest download kept; a bigger one is cancelled"),
          ),
        }),
      ]),
      v.description("Downloads: 'on' (default), 'off', or capped"),
    ),
  );

const sectionEntries = () => ({
  deny: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.maxLength(200))),
      v.maxLength(MAX_ENTRIES),
      v.description(
        "Commands removed ('eval', 'net mock'; a word covers its subcommands: 'net') and options that act differently ('cookies --values', 'connect --cdp-url')",
      ),
    ),
  ),
  origins: v.optional(
    v.strictObject({
      allow: patternList(
        "URL patterns navigation and the page's requests must match (absent: any); 'https://*.example.com', 'example.com', 'http://127.0.0.1:8080/app/*', 'data:'",
      ),
      deny: patternList("URL patterns navigation and the page's requests must not match; deny wins over allow"),
    }),
  ),
  tabAccess: v.optional(
    v.pipe(
      v.picklist(["all", "own"]),
      v.description("'own': only tabs the key created (overrides BROWSER_PILOT_TAB_ACCESS)"),
    ),
  ),
  files: v.optional(
    v.strictObject({
      uploadDirs: v.optional(
        v.pipe(
          v.array(v.pipe(v.string(), v.maxLength(4096))),
          v.maxLength(MAX_ENTRIES),
          v.description("Absolute directories uploads may come from (absent: any; empty: none)"),
        ),
      ),
      downloads: downloadsSchema(),
    }),
  ),
});

/** The file's schema; unknown fields are refused, so a typo never leaves a rule out silently. */
export const policySchema = () =>
  v.pipe(
    v.strictObject({
      version: v.optional(v.pipe(v.literal(1), v.description("Schema version (1)"))),
      ...sectionEntries(),
      keys: v.optional(
        v.pipe(
          v.record(v.pipe(v.string(), v.maxLength(128)), v.strictObject(sectionEntries())),
          v.check((r) => Object.keys(r).length <= MAX_KEYS, `at most ${MAX_KEYS} keys`),
          v.description("Per client key sections; each may only narrow the global rules"),
        ),
      ),
    }),
    v.description(
      "Browser Pilot host policy ($BROWSER_PILOT_HOME/policy.json): a launch-time reduction of what agents may do",
    ),
  );

type RawSection = v.InferOutput<v.StrictObjectSchema<ReturnType<typeof sectionEntries>, undefined>>;
export type Downloads = "on" | "off" | { maxBytes: number };

/** One section's rules, checked. */
export interface PolicyRules {
  deny: string[];
  allow?: string[];
  block: string[];
  tabAccess?: "all" | "own";
  uploadDirs?: string[];
  downloads?: Downloads;
}

export interface Policy {
  global: PolicyRules;
  keys: Record<string, PolicyRules>;
  /** sha256 of the file's bytes, first 12 hex digits. */
  digest: string;
}

export function policyInvalid(field: string, message: string): BpError {
  return new BpError(
    "policy_invalid",
    `The host policy is not valid (${field}): ${message} Every command is refused until the host fixes the file.`,
    {
      context: { field },
      remediation: {
        code: "fix_policy",
        message:
          "The host or the person must fix $BROWSER_PILOT_HOME/policy.json (see 'bp schema policy'); bp never changes it.",
        actionRequired: true,
      },
    },
  );
}

function issuePath(issue: v.BaseIssue<unknown>): string {
  const parts = (issue.path ?? []).map((p) => (typeof p.key === "number" ? `[${p.key}]` : `.${String(p.key)}`));
  return parts.join("").replace(/^\./, "") || "policy";
}

/** Text of the file → rules; throws policy_invalid naming the field. */
export async function parsePolicy(text: string): Promise<Policy> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw policyInvalid("policy", "the file is not JSON.");
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw policyInvalid("policy", "the file must hold one JSON object.");
  const parsed = v.safeParse(policySchema(), raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    throw policyInvalid(issuePath(issue), `${issue.message}.`);
  }
  const out = parsed.output;
  const global = await section(out, "");
  const keys: Record<string, PolicyRules> = {};
  for (const [key, sec] of Object.entries(out.keys ?? {})) {
    const rules = await section(sec, `keys.${key}.`);
    checkNarrows(global, rules, `keys.${key}.`);
    keys[key] = rules;
  }
  return { global, keys, digest: new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 12) };
}

async function section(sec: RawSection, at: string): Promise<PolicyRules> {
  const deny: string[] = [];
  for (const [i, entry] of (sec.deny ?? []).entries()) deny.push(await denyEntry(entry.trim(), `${at}deny[${i}]`));
  const check = (list: string[] | undefined, field: string) =>
    list?.map((p, i) => {
      const err = parseOriginPattern(p).error;
      if (err) throw policyInvalid(`${at}origins.${field}[${i}]`, err);
      return p;
    });
  const allow = check(sec.origins?.allow, "allow");
  const block = check(sec.origins?.deny, "deny") ?? [];
  const dirs = sec.files?.uploadDirs?.map((d, i) => {
    if (!d.startsWith("/") || d.split("/").some((s) => s === "." || s === ".."))
      throw policyInvalid(`${at}files.uploadDirs[${i}]`, "a directory must be an absolute path without '.' or '..'.");
    return d.length > 1 ? d.replace(/\/+$/, "") : d;
  });
  return {
    deny,
    block,
    ...(allow ? { allow } : {}),
    ...(sec.tabAccess ? { tabAccess: sec.tabAccess } : {}),
    ...(dirs ? { uploadDirs: dirs } : {}),
    ...(sec.files?.downloads !== undefined ? { downloads: sec.files.downloads } : {}),
  };
}

/** "eval", "net" (and its subcommands), "cookies --values": a command name, then at most one of its options. */
async function denyEntry(entry: string, field: string): Promise<string> {
  const m = /^([a-z]+(?: [a-z]+)?)(?: --([a-z][a-z-]*))?$/.exec(entry);
  if (!m || !m[1])
    throw policyInvalid(field, `'${entry.slice(0, 80)}' is not a command name, optionally followed by one '--option'.`);
  const name = m[1];
  const known = Object.keys(COMMAND_INDEX).some((c) => c === name || c.startsWith(`${name} `));
  if (!known) throw policyInvalid(field, `'${name}' is not a bp command.`);
  const option = m[2];
  if (option !== undefined) {
    const def = await findCommand(name);
    const entries = def
      ? ((def.args as { entries?: Record<string, unknown> }).entries ?? objectEntries(def.args))
      : undefined;
    if (!entries || !Object.hasOwn(entries, option)) throw policyInvalid(field, `'${name}' has no option --${option}.`);
  }
  return option === undefined ? name : `${name} --${option}`;
}

/** The entries of a command's args object, also behind its rules pipe. */
export function objectEntries(schema: unknown): Record<string, unknown> | undefined {
  const s = schema as { entries?: Record<string, unknown>; pipe?: unknown[] };
  if (s.entries) return s.entries;
  const first = s.pipe?.[0] as { entries?: Record<string, unknown> } | undefined;
  return first?.entries;
}

function rank(d: Downloads | undefined): number {
  if (d === undefined || d === "on") return Number.POSITIVE_INFINITY;
  if (d === "off") return -1;
  return d.maxBytes;
}

/** A key's section may only narrow: every widening is policy_invalid, naming its field. */
function checkNarrows(g: PolicyRules, k: PolicyRules, at: string): void {
  if (g.tabAccess === "own" && k.tabAccess === "all")
    throw policyInvalid(`${at}tabAccess`, "a key may not widen the global 'own' to 'all'.");
  if (g.allow && k.allow) {
    k.allow.forEach((p, i) => {
      if (!g.allow?.some((gp) => coversPattern(gp, p)))
        throw policyInvalid(
          `${at}origins.allow[${i}]`,
          `'${p.slice(0, 200)}' is wider than every global allow pattern.`,
        );
    });
  }
  if (g.uploadDirs && k.uploadDirs) {
    k.uploadDirs.forEach((d, i) => {
      if (!g.uploadDirs?.some((gd) => insideDir(gd, d)))
        throw policyInvalid(`${at}files.uploadDirs[${i}]`, "a key's upload directory must lie inside a global one.");
    });
  }
  if (k.downloads !== undefined && rank(k.downloads) > rank(g.downloads))
    throw policyInvalid(`${at}files.downloads`, "a key may not allow more downloads than the global rule.");
}

export function insideDir(dir: string, path: string): boolean {
  return dir === "/" || path === dir || path.startsWith(`${dir}/`);
}

/** The rules in force for one client key: the global section narrowed by the key's. */
export interface Effective {
  deny: string[];
  /** Every list must match (the global one and the key's). */
  allow?: string[][];
  block: string[];
  tabAccess?: "all" | "own";
  uploadDirs?: string[];
  downloads?: Downloads;
}

export function rulesFor(p: Policy, key: string): Effective {
  const g = p.global;
  const k = Object.hasOwn(p.keys, key) ? p.keys[key] : undefined;
  const allow = [g.allow, k?.allow].filter((a): a is string[] => a !== undefined);
  const downloads = k && rank(k.downloads) < rank(g.downloads) ? k.downloads : g.downloads;
  // A key's directories lie inside the global ones (checked at parse), so they alone hold.
  const uploadDirs = k?.uploadDirs ?? g.uploadDirs;
  const tabAccess = g.tabAccess === "own" || k?.tabAccess === "own" ? "own" : (k?.tabAccess ?? g.tabAccess);
  return {
    deny: [...new Set([...g.deny, ...(k?.deny ?? [])])],
    block: [...g.block, ...(k?.block ?? [])],
    ...(allow.length > 0 ? { allow } : {}),
    ...(tabAccess ? { tabAccess } : {}),
    ...(uploadDirs ? { uploadDirs } : {}),
    ...(downloads !== undefined ? { downloads } : {}),
  };
}

/** The deny entry that removes this call, if any: a command (or a word above it) or an option given a value. */
export function deniedBy(
  rules: Effective,
  command: string,
  args: Record<string, unknown>,
  defaults: Record<string, unknown> = {},
): string | undefined {
  for (const d of rules.deny) {
    const [name, opt] = d.split(" --");
    if (name !== command && !command.startsWith(`${name} `)) continue;
    if (opt === undefined) return d;
    if (name !== command) continue;
    const value = args[opt];
    if (value !== undefined && value !== false && value !== defaults[opt]) return d;
  }
  return undefined;
}

/** Whether any call of this command (with any options) is removed. */
export function commandDenied(rules: Effective, command: string): boolean {
  return rules.deny.some((d) => !d.includes(" --") && (d === command || command.startsWith(`${d} `)));
}

export { policySummarySchema, type PolicySummary } from "./policy-summary.ts";

/** `bp status`'s summary of the rules in force for a key, with the file's digest. */
export function summarize(p: Policy, key: string): PolicySummary {
  const r = rulesFor(p, key);
  const allow = r.allow?.reduce((n, l) => Math.min(n, l.length), Number.POSITIVE_INFINITY);
  return {
    digest: p.digest,
    ...(r.deny.length > 0 ? { deny: r.deny.slice(0, 20) } : {}),
    ...(allow !== undefined ? { allow } : {}),
    ...(r.block.length > 0 ? { block: r.block.length } : {}),
    ...(r.tabAccess === "own" ? { tabAccess: "own" as const } : {}),
    ...(r.uploadDirs ? { uploadDirs: r.uploadDirs.length } : {}),
    ...(r.downloads !== undefined && r.downloads !== "on"
      ? { downloads: r.downloads === "off" ? ("off" as const) : r.downloads.maxBytes }
      : {}),
  };
}
