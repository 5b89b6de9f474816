/**
 * The scripted agents of bench/episodes.ts: the same policy for every tool, written the way an
 * agent uses each tool's documented commands. It looks once (bp `open --text`, the look in the
 * open's reply; agent-browser `snapshot`: both show the instruction), then for each goal step finds the element by name in
 * what it has read so far; when the name is missing it looks again, and when still missing it
 * acts by visible text (bp `click --text`, agent-browser `find text … click`). bp's replies carry
 * the change, so what they add is read as refs; agent-browser's refs belong to its last snapshot.
 */
import type { Exec } from "./proc.ts";
import type { Step } from "./episode-pages.ts";
import { readListing } from "../../src/protocol/elements.ts";

export type Run = (args: string[]) => Promise<Exec>;

export interface Trace {
  calls: number;
  ms: number;
  chars: number;
  looks: number;
  byText: number;
  /** The first look did not show the instruction. */
  blind: boolean;
  error?: string;
}

export interface Agent {
  readonly id: string;
  play(url: string, instruction: string, goal: Step[], run: Run): Promise<Trace>;
}

function traced(run: Run, t: Trace): Run {
  return async (args) => {
    const e = await run(args);
    t.calls++;
    t.ms += e.ms;
    t.chars += e.out.length;
    if (process.env.EPISODES_DEBUG)
      console.error(`  ${Math.round(e.ms)} ms  ${args.join(" ").slice(0, 60)}  ->  ${e.out.trim().slice(0, 300)}`);
    return e;
  };
}

/** Whether an output shows the instruction, whatever its quoting of the quotes inside. */
const bare = (s: string) => s.replace(/[\\"]/g, "");
const shows = (out: string, instruction: string) => bare(out).includes(bare(instruction));

const fresh = (): Trace => ({ calls: 0, ms: 0, chars: 0, looks: 0, byText: 0, blind: false });

/** name → ref from bp JSON: elements, added elements, and runs (`replaced`/`fold`) whose ends are numbers. */
export function bpRefs(out: string, into: Map<string, string>): void {
  let v: unknown;
  try {
    v = readListing(JSON.parse(out) as object);
  } catch {
    return;
  }
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) for (const y of x) walk(y);
    else if (x && typeof x === "object") {
      const o = x as Record<string, unknown>;
      if (typeof o.r === "number" && typeof o.n === "string") into.set(o.n, String(o.r));
      const ex = o.ex;
      if (typeof o.r === "number" && typeof o.to === "number" && Array.isArray(ex) && ex.length === 2) {
        const [a, b] = ex.map(Number) as [number, number];
        if (Number.isInteger(a) && b - a === o.to - o.r)
          for (let i = 0; i <= b - a; i++) into.set(String(a + i), String(o.r + i));
      }
      for (const y of Object.values(o)) if (y && typeof y === "object") walk(y);
    }
  };
  walk(v);
}

/** name → ref from agent-browser's snapshot lines: `- button "Go" [ref=e3]`, `- listitem [ref=e9]: Ann`. */
export function abRefs(out: string, into: Map<string, string>): void {
  for (const line of out.split("\n")) {
    const ref = line.match(/\[ref=([a-z0-9]+)\]/)?.[1] ?? line.match(/ref=([a-z0-9]+)/)?.[1];
    if (!ref) continue;
    const quoted = line.match(/^\s*- [\w-]+ "([^"]*)"/)?.[1];
    const after = line.match(/\]: (.+)$/)?.[1];
    for (const n of [quoted, after]) if (n && !into.has(n)) into.set(n, ref);
  }
}

/** How one tool is driven: its looks, its commands by ref, and its fallback by visible text. */
interface Driver {
  id: string;
  /** The first look: its own call after `open`, or flags that make the open's reply the look. */
  firstLook: { call: string[] } | { open: string[] };
  look: string[];
  /** Whether a look replaces what the agent knows (refs of the last snapshot) or adds to it (stable refs). */
  replaces: boolean;
  /** Whether an action's reply names elements the agent can use next. */
  repliesRefs: boolean;
  refs(out: string, into: Map<string, string>): void;
  act(step: Step, ref: string, to: string | undefined): string[];
  byText(name: string): string[];
  failed(e: Exec): boolean;
  shows(out: string, instruction: string): boolean;
}

function agent(d: Driver): Agent {
  return {
    id: d.id,
    async play(url, instruction, goal, run0) {
      const t = fresh();
      const run = traced(run0, t);
      let refs = new Map<string, string>();
      const look = async (args: string[]) => {
        t.looks++;
        const e = await run(args);
        if (d.replaces) refs = new Map();
        d.refs(e.out, refs);
        return e;
      };
      const first = d.firstLook;
      if ("call" in first) await run(["open", url]);
      const seen = await look("call" in first ? first.call : ["open", url, ...first.open]);
      t.blind = !d.shows(seen.out, instruction);
      for (const step of goal) {
        let e: Exec | undefined;
        for (let attempt = 0; attempt < 2; attempt++) {
          if (attempt > 0 || !refs.has(step.name) || (step.op === "drag" && !refs.has(step.to))) await look(d.look);
          const ref = refs.get(step.name);
          if (ref === undefined && step.op !== "click") {
            t.error = `no ref for ${step.name}`;
            return t;
          }
          if (ref === undefined) t.byText++;
          e = await run(
            ref === undefined
              ? d.byText(step.name)
              : d.act(step, ref, step.op === "drag" ? refs.get(step.to) : undefined),
          );
          if (!d.failed(e)) break;
        }
        if (!e || d.failed(e)) {
          t.error = `${step.op} ${step.name}: ${(e?.out.match(/"code":"(\w+)"/)?.[1] ?? `${e?.out ?? ""}${e?.err ?? ""}`).trim().slice(0, 100)}`;
          return t;
        }
        if (d.repliesRefs) d.refs(e.out, refs);
      }
      return t;
    },
  };
}

export const bpAgent = agent({
  id: "bp",
  firstLook: { open: ["--text"] },
  look: ["snapshot"],
  replaces: false,
  repliesRefs: true,
  refs: bpRefs,
  act: (step, ref, to) =>
    step.op === "click"
      ? ["click", ref]
      : step.op === "type"
        ? ["type", ref, step.text]
        : step.op === "select"
          ? ["select", ref, step.option]
          : // Below the last item's centre: the drop that puts it after that item (bp drag --help).
            ["drag", ref, to ?? "", "--offset", "0,20"],
  byText: (name) => ["click", "--text", name],
  failed: (e) => e.code !== 0 || e.timedOut || e.out.trimStart().startsWith('{"ok":false'),
  shows,
});

export const abAgent = agent({
  id: "agent-browser",
  firstLook: { call: ["snapshot"] },
  look: ["snapshot", "-i"],
  replaces: true,
  repliesRefs: false,
  refs: abRefs,
  act: (step, ref, to) =>
    step.op === "click"
      ? ["click", `@${ref}`]
      : step.op === "type"
        ? ["fill", `@${ref}`, step.text]
        : step.op === "select"
          ? ["select", `@${ref}`, step.option]
          : ["drag", `@${ref}`, `@${to ?? ""}`],
  byText: (name) => ["find", "text", name, "click"],
  failed: (e) => e.code !== 0 || e.timedOut,
  shows,
});
