/**
 * Fuzzed host policies: documents built from real command names, options and origin patterns
 * (most of them valid), then mutated (junk entries, wrong types, unknown fields, widening key
 * sections, cut text), so both sides of the parser are exercised: what it accepts and what it
 * must refuse with policy_invalid.
 */
type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const chance = (r: Rand, p: number) => r() < p;
const some = <T>(r: Rand, xs: readonly T[], max: number): T[] =>
  Array.from({ length: Math.floor(r() * (max + 1)) }, () => pick(r, xs));

export const DENY_ENTRIES = [
  "eval",
  "screenshot",
  "cookies --values",
  "net mock",
  "net",
  "upload",
  "download",
  "handoff",
  "connect --cdp-url",
  "open",
  "snapshot",
  "tabs",
  "tab",
  "cookies",
  "pdf",
  "read",
  "find",
  "click",
  "wait",
];
const JUNK_DENY = ["evall", "cookies --valuez", "", "eval;", "net  mock", "--values", "Eval", "x".repeat(300)];
const JUNK_PATTERNS = [
  "",
  " a.test",
  "bad host",
  "a.test:99999",
  "*x.test",
  "http//a",
  "a.test/**",
  "1://x",
  "*.*",
  "a\\b",
];

export interface PolicyWorld {
  /** Allowed page origin (127.0.0.1:port) and the other one (localhost:port). */
  a: string;
  b: string;
  keys: readonly string[];
  dirs: readonly string[];
}

function patterns(r: Rand, w: PolicyWorld): string[] {
  const ua = new URL(w.a);
  const ub = new URL(w.b);
  return [
    ua.hostname,
    ub.hostname,
    `http://${ua.host}`,
    `http://${ub.host}`,
    `${ub.hostname}/probe*`,
    `${ua.hostname}/echo*`,
    "*.test",
    "example.com",
    "data:",
    "*",
    `http://${ub.hostname}:*`,
    `https://${ub.hostname}`,
    `${ub.hostname}:${Number(ub.port) + 1}`,
    ...(chance(r, 0.1) ? [pick(r, JUNK_PATTERNS)] : []),
  ];
}

function section(r: Rand, w: PolicyWorld): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  if (chance(r, 0.6)) s.deny = [...some(r, DENY_ENTRIES, 4), ...(chance(r, 0.08) ? [pick(r, JUNK_DENY)] : [])];
  if (chance(r, 0.7)) {
    const o: Record<string, unknown> = {};
    if (chance(r, 0.4)) o.allow = some(r, patterns(r, w), 3);
    if (chance(r, 0.7)) o.deny = some(r, patterns(r, w), 3);
    s.origins = o;
  }
  if (chance(r, 0.25)) s.tabAccess = pick(r, ["own", "all", "own", "some"]);
  if (chance(r, 0.3)) {
    const f: Record<string, unknown> = {};
    if (chance(r, 0.5)) f.uploadDirs = some(r, [...w.dirs, "relative/dir", "/"], 2);
    if (chance(r, 0.5))
      f.downloads = pick(r, ["on", "off", { maxBytes: 1000 }, { maxBytes: 0 }, { maxBytes: -5 }, "maybe"]);
    s.files = f;
  }
  return s;
}

/** A policy document (an object) and its text, sometimes mutated past validity. */
export function makePolicy(r: Rand, w: PolicyWorld): string {
  const doc: Record<string, unknown> = section(r, w);
  if (chance(r, 0.6)) {
    const keys: Record<string, unknown> = {};
    for (const k of some(r, w.keys, 2)) keys[k] = section(r, w);
    doc.keys = keys;
  }
  if (chance(r, 0.1)) doc.version = pick(r, [1, 2, "1"]);
  if (chance(r, 0.05)) doc[pick(r, ["denny", "origin", "tabaccess", "key"])] = [];
  if (chance(r, 0.05)) doc[pick(r, ["deny", "origins", "keys", "files"])] = pick(r, [null, 5, "eval", [], {}, true]);
  let text = JSON.stringify(doc);
  if (chance(r, 0.04)) text = text.slice(0, Math.floor(r() * text.length));
  if (chance(r, 0.02)) text = pick(r, ["", "null", "[]", '"policy"', "{}", '{"deny":["eval"],}']);
  return text;
}
