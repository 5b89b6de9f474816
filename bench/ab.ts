/**
 * `bun bench/ab.ts <bp-a> <bp-b> [runs]`: two builds of bp side by side, each with its own home
 * and launched browser, on the bench's form page, timed as whole processes in one interleaved
 * loop (a, b, then b, a, with a short random pause between calls so neither locks onto the
 * other's frame phase). Prints medians of click, type and snapshot, time and characters printed. For telling whether a change
 * made the hot path slower: the shared machine's load moves both builds alike.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLICK_TARGET, startFixtures, TYPE_TARGET } from "./lib/fixtures.ts";

const [a, b, runsArg] = process.argv.slice(2);
if (!a || !b) {
  console.error("usage: bun bench/ab.ts <bp-a> <bp-b> [runs]");
  process.exit(2);
}
const runs = Number(runsArg ?? 40);
const builds = { a, b };
type Build = keyof typeof builds;
const homes: Record<Build, string> = { a: mkdtempSync(join(tmpdir(), "bp-ab-a-")), b: mkdtempSync(join(tmpdir(), "bp-ab-b-")) };
const fx = startFixtures();

async function bp(which: Build, args: string[]): Promise<{ ms: number; out: string }> {
  const started = performance.now();
  const proc = Bun.spawn([builds[which], ...args], { env: { ...process.env, BROWSER_PILOT_HOME: homes[which], BROWSER_PILOT_CLIENT_KEY: "bench-ab" }, stdout: "pipe", stderr: "ignore" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return { ms: performance.now() - started, out };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1] ?? NaN;

try {
  const refs = {} as Record<Build, { click: string; type: string }>;
  for (const which of ["a", "b"] as const) {
    await bp(which, ["launch", "--headless"]);
    await bp(which, ["open", fx.url("/form"), "--new"]);
    const elements = (JSON.parse((await bp(which, ["snapshot"])).out).elements ?? []) as { r: number; n?: string }[];
    const ref = (name: string) => String(elements.find((e) => e.n === name)?.r ?? "");
    refs[which] = { click: ref(CLICK_TARGET), type: ref(TYPE_TARGET) };
  }
  const steps: Record<string, (w: Build) => string[]> = {
    click: (w) => ["click", refs[w].click],
    type: (w) => ["type", refs[w].type, "Ada"],
    snapshot: () => ["snapshot"],
  };
  for (const [name, args] of Object.entries(steps)) {
    const times: Record<Build, number[]> = { a: [], b: [] };
    const chars: Record<Build, number[]> = { a: [], b: [] };
    for (let i = 0; i < runs + 3; i++) {
      for (const which of i % 2 ? (["b", "a"] as const) : (["a", "b"] as const)) {
        const { ms, out } = await bp(which, args(which));
        if (i >= 3) times[which].push(ms);
        chars[which].push(out.trimEnd().length);
        await Bun.sleep(5 + Math.random() * 10);
      }
    }
    console.log(`${name.padEnd(9)} a ${median(times.a).toFixed(1)} ms   b ${median(times.b).toFixed(1)} ms   (${runs} runs each)   chars a ${median(chars.a)} b ${median(chars.b)}`);
  }
} finally {
  for (const which of ["a", "b"] as const) {
    await bp(which, ["disconnect"]);
    rmSync(homes[which], { recursive: true, force: true });
  }
  fx.stop();
}
