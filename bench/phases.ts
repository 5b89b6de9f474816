/**
 * `bun bench/phases.ts [--only=id,…] [--runs=N] [--write]`: where one bp command's time goes,
 * phase by phase, for the act-and-see steps of the bench (form page, widget pages) and for
 * `snapshot` and `eval`. bp runs with BROWSER_PILOT_PHASES (src/cdp/phases.ts, off by default),
 * so its broker writes the times of what it did for each request; this joins them with the
 * process's spawn and exit, as the bench times them:
 *
 *   CLI start     spawn → the broker sees the connection (runtime, CLI parse, locator, connect)
 *   request       connection → request line
 *   accept+queue  request line → first browser call (checks, command record, the tab's queue)
 *   <browser calls> by what they are: locate, dispatch (input), settle (by its cause), observe
 *                 (the snapshot step), read-back, page-call overhead (CDP and the page's turn
 *                 outside our steps), other CDP
 *   broker gaps   time between browser calls (waits on network or navigation events, broker code)
 *   reply         last browser answer → reply written (diff, shape, JSON)
 *   CLI exit      reply written → process exit (read, print, exit)
 *
 * --write puts the tables in docs/benchmarks.md's phases section.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFixtures } from "./lib/fixtures.ts";
import { PHASES_SECTION, replaceSection } from "./lib/sections.ts";
import { type ActStep, actArgs, FORM_STEPS, resetStep, resolveTargets, WIDGET_STEPS } from "./scenarios/widgets.ts";
import { BpTool } from "./tools/bp.ts";

const root = resolve(import.meta.dir, "..");
const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = option("only")?.split(",");
const runs = Number(option("runs") ?? 10);
const warmup = 2;
const write = argv.includes("--write");

type Entry = [number, string, unknown?];
interface Send {
  id: number;
  method: string;
  steps?: string[];
}
interface PageSummary {
  tm?: number[];
  settle?: Record<string, number | boolean>;
}

/** Why a settle ended, from its answer (src/page/act-settle.ts). */
function settleCause(s: Record<string, number | boolean>): string {
  const n = (k: string) => Number(s[k] ?? 0);
  if (s.capped)
    return `capped at the limit (${n("animating") > 0 ? "an animation ran" : n("mutations") > 0 ? "the page kept changing" : "no quiet"})`;
  if (n("animating") > 0) return "an animation ran";
  if (s.looped) return "the page's animation-frame loop ran: a frame after it asked for no next one";
  if (s.scripted) return "an animation by script (inline styles rewritten each frame) ran";
  if (s.answered) return "an answer's change during the call: a frame after the answer";
  if (s.overDuring) return "a change the pointer's over events brought during the call: a frame after them";
  // Changes outrank the timer flag: the floor is short, the quiet period after the last change is not.
  const timer = s.timed || s.timedOver ? ", the input's handlers set a timer" : "";
  if (n("mutations") > 0) return `DOM changed: quiet period and frames${timer}`;
  if (timer) return "timer floor (the input's handlers set a timer)";
  return "nothing changed: frame rule";
}

/** Phase name of one page step. */
function stepPhase(name: string): string {
  if (name === "quiet:settle") return "settle";
  if (name === "quiet:late" || name === "quiet:hold") return `wait for a later change (${name.slice(6)})`;
  if (name.startsWith("quiet:")) return "arm the watcher";
  if (name === "snapshot") return "observe (snapshot)";
  if (name === "ref") return "locate";
  return `page step ${name}`;
}

function callPhase(send: Send): string {
  if (send.method.startsWith("Input.")) return "dispatch (input events)";
  if (send.method === "Runtime.callFunctionOn" && send.steps) {
    if (send.steps.includes("quiet:settle")) return "settle call";
    if (send.steps[0] === "ref") return "locate call";
    if (send.steps.includes("snapshot")) return "observe call";
    return "page call";
  }
  return `CDP ${send.method}`;
}

interface Breakdown {
  phases: Map<string, number>;
  causes: string[];
}

/** One request's phases, from the broker's record and the process's spawn and exit (epoch ms). */
function breakdown(entries: Entry[], spawned: number, exited: number): Breakdown {
  const phases = new Map<string, number>();
  const add = (k: string, ms: number) => phases.set(k, (phases.get(k) ?? 0) + Math.max(0, ms));
  const causes: string[] = [];
  const at = (label: string) => entries.find((e) => e[1] === label);
  const connected = Number(at("connected")?.[2] ?? at("connected")?.[0] ?? spawned);
  const request = at("request")?.[0] ?? connected;
  const written = at("written")?.[0] ?? exited;
  add("CLI start (to connection)", connected - spawned);
  add("request line", request - connected);
  const sends = new Map<number, { t: number; send: Send }>();
  const calls: {
    start: number;
    end: number;
    send: Send;
    page?: PageSummary;
  }[] = [];
  for (const [t, label, extra] of entries) {
    if (label === "send") sends.set((extra as Send).id, { t, send: extra as Send });
    if (label === "reply") {
      const r = extra as { id: number; page?: PageSummary };
      const s = sends.get(r.id);
      if (s) calls.push({ start: s.t, end: t, send: s.send, page: r.page });
    }
  }
  calls.sort((a, b) => a.start - b.start);
  // A question asked beside the action's own calls (type's listener lookup, sent with the text)
  // takes none of their time: only its part after the last of them it overlaps is its.
  const own = (c: (typeof calls)[number]) => c.send.method.startsWith("Input.") || c.send.steps !== undefined;
  const walked = calls
    .map((c) => {
      if (own(c)) return c;
      let start = c.start;
      for (const o of calls) if (own(o) && o.start < c.end && c.start < o.end) start = Math.max(start, o.end);
      return { ...c, start };
    })
    .filter((c) => c.start < c.end)
    .sort((a, b) => a.start - b.start);
  const events = entries.filter((e) => e[1] === "event");
  let cursor = request;
  let first = true;
  for (const c of walked) {
    if (c.end <= cursor) continue;
    if (c.start > cursor) {
      if (first) add("accept + queue (to the first browser call)", c.start - cursor);
      else {
        const seen = events.filter((e) => e[0] > cursor && e[0] < c.start).map((e) => String(e[2]));
        const why = seen.some((m) => m.startsWith("Network."))
          ? "network events"
          : seen.some((m) => m.startsWith("Page."))
            ? "page events"
            : "broker code";
        add(`broker between calls (${why})`, c.start - cursor);
      }
    }
    first = false;
    const from = Math.max(cursor, c.start);
    const span = c.end - from;
    const phase = callPhase(c.send);
    const tm = c.page?.tm;
    if (tm && c.send.steps && tm.length === c.send.steps.length) {
      // The page's own time per step; the rest of the call is CDP and the page's turn.
      let inPage = 0;
      c.send.steps.forEach((name, i) => {
        const ms = Math.min(tm[i] ?? 0, span - inPage);
        const p = stepPhase(name);
        add(p === "settle" && c.page?.settle ? `settle: ${settleCause(c.page.settle)}` : p, ms);
        inPage += ms;
      });
      add(`${phase}: CDP and page turn`, span - inPage);
    } else add(phase, span);
    if (c.page?.settle) causes.push(settleCause(c.page.settle));
    cursor = Math.max(cursor, c.end);
  }
  if (walked.length === 0) add("broker (no browser call)", written - request);
  else add("reply (diff, shape, write)", written - cursor);
  add("CLI exit (read, print, exit)", exited - written);
  return { phases, causes };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? 0 : s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

const dir = mkdtempSync(join(tmpdir(), "bp-bench-phases-"));
const traceFile = join(dir, "phases.jsonl");
const fx = startFixtures();
const tool = new BpTool(root, { BROWSER_PILOT_PHASES: traceFile });
const loadAtStart = loadavg();
const sections: string[] = [];

interface Case {
  id: string;
  label: string;
  page: string;
  act?: ActStep;
  args?: string[];
}
const cases: Case[] = [
  ...[...FORM_STEPS, ...WIDGET_STEPS].map((s) => ({
    id: s.id,
    label: s.label,
    page: s.page,
    act: s,
  })),
  {
    id: "form-snapshot",
    label: "form: snapshot",
    page: "/form",
    args: ["snapshot"],
  },
  {
    id: "form-eval",
    label: "form: eval 1+1",
    page: "/form",
    args: ["eval", "1+1"],
  },
].filter((c) => !only || only.includes(c.id));

function traceLines(): Entry[][] {
  if (!existsSync(traceFile)) return [];
  return readFileSync(traceFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry[]);
}

try {
  await tool.init();
  if (tool.skipped) throw new Error(`bp: ${tool.skipped}`);
  await tool.start(fx.url("/form"));
  for (const c of cases) {
    const e = await tool.run(["open", fx.url(c.page)]);
    if (!tool.ok(e)) throw new Error(`open ${c.page}: ${e.out}`);
    if (c.act) await resetStep(tool, c.act);
    const refs = c.act ? await resolveTargets(tool, c.act) : [];
    const args = c.act ? actArgs(tool, c.act, refs) : (c.args ?? []);
    const all: Breakdown[] = [];
    const totals: number[] = [];
    const floors: number[] = [];
    for (let i = 0; i < warmup + runs; i++) {
      if (c.act) await resetStep(tool, c.act, refs);
      const before = traceLines().length;
      const spawned = performance.timeOrigin + performance.now();
      const r = await tool.run(args);
      const exited = spawned + r.ms;
      if (!tool.ok(r)) throw new Error(`${args.join(" ")}: ${r.out.slice(0, 200)}`);
      // The broker appends its record right after writing the reply: the process may exit first.
      let mine: Entry[] | undefined;
      for (let wait = 0; wait < 50 && !mine; wait++) {
        if (wait) await Bun.sleep(10);
        mine = traceLines()
          .slice(before)
          .find((l) => l.some((e) => e[1] === "request" && e[2] === args[0]));
      }
      const floor = (await tool.run(["--version"])).ms;
      if (i < warmup || !mine) continue;
      all.push(breakdown(mine, spawned, exited));
      totals.push(r.ms);
      floors.push(floor);
    }
    // In the order they happen: by their mean position in the runs that had them.
    const pos = new Map<string, number[]>();
    for (const b of all) {
      const ks = [...b.phases.keys()];
      for (const [i, k] of ks.entries()) pos.set(k, [...(pos.get(k) ?? []), i / ks.length]);
    }
    const mean = (k: string) => (pos.get(k) ?? [0]).reduce((x, y) => x + y, 0) / (pos.get(k)?.length ?? 1);
    const names = [...pos.keys()].sort((x, y) => mean(x) - mean(y));
    const rows = names
      .map((n) => ({ n, ms: median(all.map((b) => b.phases.get(n) ?? 0)) }))
      .filter((r) => r.ms >= 0.05);
    const total = median(totals);
    const causes = new Map<string, number>();
    for (const b of all) for (const k of b.causes) causes.set(k, (causes.get(k) ?? 0) + 1);
    const lines = [
      `### ${c.label}: \`bp ${args[0]}\`, ${total.toFixed(1)} ms (median of ${totals.length})`,
      "",
      "| phase | ms (median) | share |",
      "|---|--:|--:|",
      ...rows.map((r) => `| ${r.n} | ${r.ms.toFixed(1)} | ${Math.round((100 * r.ms) / total)}% |`),
      "",
      `Start-up floor in the same loop (\`bp --version\`, spawn to exit): ${median(floors).toFixed(1)} ms.`,
      "",
      causes.size
        ? `Settle calls by cause: ${[...causes].map(([k, n]) => `${k} ×${n}`).join("; ")}.`
        : "No settle call.",
      "",
    ];
    console.log(lines.join("\n"));
    sections.push(lines.join("\n"));
  }
  if (write) {
    const file = join(root, "docs/benchmarks.md");
    const text = [
      PHASES_SECTION,
      "## Where a bp command's time goes",
      "",
      `Generated by \`bun bench/phases.ts --write\`; run ${new Date().toISOString()}, ${tool.version}, ${cpus().length} × ${cpus()[0]?.model ?? "CPU"}, load average at start ${loadAtStart.map((x) => x.toFixed(2)).join(", ")}.`,
      "",
      "bp runs with `BROWSER_PILOT_PHASES=<file>` (off by default): its broker writes the times of what it did for each request " +
        "(connection, request line, each CDP call and event, the page's own time per step of a page call, the settle's answer, the reply); " +
        "the script joins them with the process's spawn and exit. Each phase is its median over the runs, so the phases need not add up " +
        "to the total exactly. “CDP and page turn” is a page call's time outside our page steps (the message through the janitor, " +
        "Chromium's turn, the JSON). Settle causes are read from the settle's answer (capped, animating, timed, mutations).",
      "",
      ...sections,
    ].join("\n");
    writeFileSync(file, replaceSection(existsSync(file) ? readFileSync(file, "utf8") : "", PHASES_SECTION, text));
    console.log(`wrote ${file}`);
  }
} finally {
  await tool.shutdown();
  fx.stop();
  rmSync(dir, { recursive: true, force: true });
}
