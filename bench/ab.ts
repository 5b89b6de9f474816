/**
 * `bun bench/ab.ts <bp-a> <bp-b> [runs] [--widgets]`: two builds of bp side by side, each with its
 * own home and launched browser, timed as whole processes in one interleaved loop (a, b, then
 * b, a, with a short random pause between calls so neither locks onto the other's frame phase).
 * Prints medians of click, type and snapshot on the bench's form page, time and characters
 * printed (type twice: into "Full name", whose page echoes the text, and into "Email", whose page
 * does nothing on input, as a login or search field's); --widgets adds the act-and-see steps of the widget pages (scenarios/widgets.ts), each
 * after an untimed reset and look; --nav adds open and see (a new URL of the form page each time)
 * and back and see (from another page, opened untimed). For telling whether a change made the hot path slower: the
 * shared machine's load moves both builds alike; the CPU time each process used (user + system) moves
 * less with the load than its wall time, so a change to the CLI's start shows there first.
 * `--only=name,name` keeps the cases of those names (as printed: `type`, `type plain`, `react-type`, …).
 * `--idle=ms` waits that long (untimed) before each timed call, as an agent's thinking does: the page idles, its
 * renderer stops drawing frames.
 * `bun bench/phases.ts` then says where the time went.
 */
import { resolve } from "node:path";
import { startFixtures } from "./lib/fixtures.ts";
import { type ActStep, actArgs, FORM_STEPS, resetStep, resolveTargets, WIDGET_STEPS } from "./scenarios/widgets.ts";
import { BpTool } from "./tools/bp.ts";

const args = process.argv.slice(2).filter((x) => !x.startsWith("--"));
const [a, b, runsArg] = args;
if (!a || !b) {
  console.error("usage: bun bench/ab.ts <bp-a> <bp-b> [runs] [--widgets] [--nav] [--only=name,…] [--idle=ms]");
  process.exit(2);
}
const runs = Number(runsArg ?? 40);
const root = resolve(import.meta.dir, "..");
const tools = {
  a: new BpTool(root, {}, resolve(a)),
  b: new BpTool(root, {}, resolve(b)),
};
type Build = keyof typeof tools;
const fx = startFixtures();

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1] ?? Number.NaN;

interface Case {
  name: string;
  step?: ActStep;
  args?: string[];
  /** Arguments that change with each run (a navigation's new URL). */
  argsAt?: (run: number) => string[];
  /** Untimed, before each run. */
  before?: (t: BpTool, run: number) => Promise<unknown>;
}
let navs = 0;
const fresh = () => fx.url(`/form?ab=${++navs}`);
const cases: Case[] = [
  ...FORM_STEPS.map((s) => ({ name: s.kind, step: s })),
  {
    name: "type plain",
    step: {
      id: "form-plain",
      page: "/form",
      label: "form: type into a plain field",
      kind: "type",
      target: { name: "Email" },
      text: "ada@example.com",
      reset: "document.querySelector('[name=email]').value = ''",
    },
  },
  { name: "snapshot", args: ["snapshot"] },
  ...(process.argv.includes("--widgets") ? WIDGET_STEPS.map((s) => ({ name: s.id, step: s })) : []),
  ...(process.argv.includes("--nav")
    ? [
        { name: "open+see", argsAt: () => ["open", fresh(), "--snapshot"] },
        {
          name: "back+see",
          args: ["back", "--snapshot"],
          before: async (t: BpTool) => {
            await t.run(["open", fresh()]);
            await t.run(["open", fx.url(`/page?n=ab${navs}`)]);
          },
        },
      ]
    : []),
];

const only = process.argv
  .find((x) => x.startsWith("--only="))
  ?.slice(7)
  .split(",")
  .map((x) => x.trim());
const idleMs = Number(process.argv.find((x) => x.startsWith("--idle="))?.slice(7) ?? 0);
const chosen = only ? cases.filter((c) => only.includes(c.name)) : cases;
if (only && chosen.length !== only.length) {
  console.error(`--only: no case named ${only.filter((n) => !cases.some((c) => c.name === n)).join(", ")}`);
  process.exit(2);
}

try {
  for (const which of ["a", "b"] as const) {
    await tools[which].init();
    if (tools[which].skipped) throw new Error(`${which}: ${tools[which].skipped}`);
    await tools[which].start(fx.url("/form"));
  }
  for (const c of chosen) {
    const page = c.step?.page ?? "/form";
    const argv = {} as Record<Build, string[]>;
    const refs = {} as Record<Build, string[]>;
    for (const which of ["a", "b"] as const) {
      const t = tools[which];
      await t.run(["open", fx.url(page)]);
      if (c.step) await resetStep(t, c.step);
      refs[which] = c.step ? await resolveTargets(t, c.step) : [];
      argv[which] = c.step ? actArgs(t, c.step, refs[which]) : (c.args ?? []);
    }
    const times: Record<Build, number[]> = { a: [], b: [] };
    const cpu: Record<Build, number[]> = { a: [], b: [] };
    const chars: Record<Build, number[]> = { a: [], b: [] };
    const failed: Record<Build, number> = { a: 0, b: 0 };
    for (let i = 0; i < runs + 3; i++) {
      for (const which of i % 2 ? (["b", "a"] as const) : (["a", "b"] as const)) {
        const t = tools[which];
        if (c.step) await resetStep(t, c.step, refs[which]);
        await c.before?.(t, i);
        if (idleMs > 0) await Bun.sleep(idleMs);
        const e = await t.run(c.argsAt?.(i) ?? argv[which]);
        if (!t.ok(e)) failed[which]++;
        if (i >= 3) times[which].push(e.ms);
        if (i >= 3 && e.cpuMs !== undefined) cpu[which].push(e.cpuMs);
        chars[which].push(e.out.trimEnd().length);
        await Bun.sleep(5 + Math.random() * 10);
      }
    }
    const fails = failed.a + failed.b ? `   failed a ${failed.a} b ${failed.b}` : "";
    console.log(
      `${c.name.padEnd(12)} a ${median(times.a).toFixed(1)} ms   b ${median(times.b).toFixed(1)} ms   (${runs} runs each)   CPU a ${median(cpu.a).toFixed(1)} b ${median(cpu.b).toFixed(1)} ms   chars a ${median(chars.a)} b ${median(chars.b)}${fails}`,
    );
  }
} finally {
  for (const t of Object.values(tools)) await t.shutdown();
  fx.stop();
}
