/**
 * Drives the compiled `dist/bp` against the corpus pages, like an agent's shell would: one
 * process per command, one tab, one private BROWSER_PILOT_HOME. Everything measured here comes
 * from real bp output; nothing is inferred from the page itself except ground truth for clicks.
 */
import type { BpEnv, BpResult } from "../support/bp.ts";
import type { Fixture } from "../support/fixture-server.ts";
import { targetKey, type Case, type Target } from "./corpus.ts";

/** A snapshot entry in the compact JSON form (short keys; see src/broker/render/format.ts). */
export interface Entry {
  r?: number;
  t?: string;
  n?: string;
  d?: string;
  v?: string;
  s?: string;
  f?: string;
  fold?: number;
  to?: number;
  ex?: string[];
}

export interface Snap {
  json: BpResult["json"];
  entries: Entry[];
  /** UTF-8 bytes of the JSON line, origins normalised to fixed-length placeholders. */
  bytes: number;
}

export interface CaseResult {
  id: string;
  expected: string[];
  found: string[];
  forbidden: string[];
  /** Forbidden names that were listed. */
  falseInteractables: string[];
  bytes: number;
}

export type ProbeStatus = "detected" | "missed" | "skipped";

export interface ProbeResult {
  id: string;
  /** observation: after acting or observing, the agent's picture matches the page (visible, settled, addressable). */
  metric: "action_failure" | "stale_ref" | "observation";
  status: ProbeStatus;
  detail: string;
}

export class Harness {
  private readonly helpCache = new Map<string, boolean>();
  private opened = false;

  constructor(
    readonly env: BpEnv,
    readonly site: Fixture,
  ) {}

  bp(args: string[]): Promise<BpResult> {
    return this.env.run(args);
  }

  /** Navigates the one tab of this run (creating it on first use). */
  async open(path: string): Promise<void> {
    const first = !this.opened;
    this.opened = true;
    const r = await this.bp(["open", `${this.site.a}${path}`, ...(first ? ["--new"] : [])]);
    if (!r.json.ok) throw new Error(`bp open ${path} failed: ${r.stdout}${r.stderr}`);
  }

  async snapshot(args: string[] = []): Promise<Snap> {
    const r = await this.bp(["snapshot", ...args]);
    if (!r.json.ok) throw new Error(`bp snapshot failed: ${r.stdout}${r.stderr}`);
    const line = r.stdout.trim().split(this.site.a).join("http://a.test").split(this.site.b).join("http://b.test");
    return { json: r.json, entries: toEntries(r.json.elements), bytes: Buffer.byteLength(line, "utf8") };
  }

  /** The value of a page expression (main world), or throws. */
  async evaluate(expression: string): Promise<unknown> {
    const r = await this.bp(["eval", expression]);
    if (!r.json.ok) throw new Error(`bp eval failed: ${r.stdout}`);
    return r.json.value;
  }

  /** Polls a page expression until it is truthy (the page may be between documents meanwhile). */
  async until(expression: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.bp(["eval", expression]);
      if (r.json.ok && r.json.value) return;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
      await Bun.sleep(50);
    }
  }

  /** Whether this bp build has a command (its `--help` exits 0). */
  async has(command: string): Promise<boolean> {
    const known = this.helpCache.get(command);
    if (known !== undefined) return known;
    const r = await this.bp([command, "--help"]);
    this.helpCache.set(command, r.code === 0);
    return r.code === 0;
  }

  async runCase(c: Case): Promise<CaseResult> {
    await this.open(c.path);
    const snap = await this.snapshot();
    const found: string[] = [];
    for (const t of c.expect) {
      const ok = t.inFold
        ? await this.foundInFold(snap, t, t.inFold.minCount)
        : snap.entries.some((e) => matches(e, t));
      if (ok) found.push(targetKey(t));
    }
    const listedNames = new Set(snap.entries.flatMap((e) => [e.n ?? e.d ?? "", ...(e.ex ?? [])]));
    return {
      id: c.id,
      expected: c.expect.map(targetKey),
      found,
      forbidden: [...c.forbid],
      falseInteractables: c.forbid.filter((name) => listedNames.has(name)),
      bytes: snap.bytes,
    };
  }

  private async foundInFold(snap: Snap, t: Target, minCount: number): Promise<boolean> {
    const folds = snap.entries.filter((e) => e.fold !== undefined && roleMatches(e.t, t.role));
    const fold = folds[0];
    if (folds.length !== 1 || !fold || (fold.fold ?? 0) < minCount || fold.to === undefined) return false;
    const click = await this.bp(["click", String(fold.to)]);
    if (!click.json.ok) return false;
    return (await this.evaluate("document.body.dataset.hit ?? ''")) === t.name;
  }
}

function roleMatches(role: string | undefined, want: Target["role"]): boolean {
  return role !== undefined && (typeof want === "string" ? role === want : want.includes(role));
}

export function matches(e: Entry, t: Target): boolean {
  // An unnamed icon is matched by its description (`d`).
  if (e.fold !== undefined || !roleMatches(e.t, t.role) || (e.n ?? e.d ?? "") !== t.name) return false;
  if (t.value !== undefined && e.v !== t.value) return false;
  if (t.state !== undefined && !(e.s ?? "").split(" ").includes(t.state)) return false;
  if (t.frame && e.f === undefined) return false;
  return true;
}

function toEntries(value: unknown): Entry[] {
  if (!Array.isArray(value)) throw new Error("snapshot without an elements array");
  return value.map((item: unknown): Entry => {
    if (typeof item !== "object" || item === null) throw new Error(`unexpected snapshot entry ${JSON.stringify(item)}`);
    const o = item as Record<string, unknown>;
    const str = (k: string): string | undefined => (typeof o[k] === "string" ? (o[k] as string) : undefined);
    const num = (k: string): number | undefined => (typeof o[k] === "number" ? (o[k] as number) : undefined);
    const ex = Array.isArray(o.ex) ? o.ex.filter((x): x is string => typeof x === "string") : undefined;
    const e: Entry = {};
    const r = num("r");
    if (r !== undefined) e.r = r;
    for (const k of ["t", "n", "d", "v", "s", "f"] as const) {
      const s = str(k);
      if (s !== undefined) e[k] = s;
    }
    const fold = num("fold");
    if (fold !== undefined) e.fold = fold;
    const to = num("to");
    if (to !== undefined) e.to = to;
    if (ex) e.ex = ex;
    return e;
  });
}

/** The ref of the listed element with this exact name, or throws (the probe's page is broken). */
export function refOf(snap: Snap, name: string): number {
  const e = snap.entries.find((x) => x.n === name && x.r !== undefined);
  if (e?.r === undefined) throw new Error(`no ref named ${JSON.stringify(name)} in ${JSON.stringify(snap.entries)}`);
  return e.r;
}
