/**
 * `bun bench/memory.ts [bp-a] [bp-b] [--runs=N] [--write]`: idle memory of bp's broker and
 * janitor, and the time of the first commands, for one build or two side by side (interleaved,
 * each run in a fresh home: launch, open the form page, snapshot, click, type, eval, then idle).
 *
 * Per process, from /proc/<pid>/status and smaps_rollup: RSS (what `ps -o rss` shows), its
 * anonymous part (heaps: what the role itself holds) and file part (the executable's pages it
 * touched), and PSS (file pages shared by the two processes counted once between them). The sum
 * of the two RSS counts the executable's pages both touched twice; PSS does not.
 *
 * Before each run the executable's pages leave the page cache (`dd iflag=nocache`): the kernel maps
 * a touched page's neighbours too when they are cached, so a just-built or just-copied file (all
 * of it cached) showed ~5 MB more file pages per process than the same build started cold, and
 * whichever build was copied last looked bigger.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CLICK_TARGET, startFixtures, TYPE_TARGET } from "./lib/fixtures.ts";
import { alive, cleanEnv, cmdline, descendants, exec, signalMarked, waitGone } from "./lib/proc.ts";
import { MEMORY_SECTION, replaceSection } from "./lib/sections.ts";
import { CHROMIUM } from "./tools/types.ts";
import { readListing } from "../src/protocol/elements.ts";

const root = resolve(import.meta.dir, "..");
const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const builds = argv.filter((a) => !a.startsWith("--")).map((p) => resolve(p));
if (builds.length === 0) builds.push(join(root, "dist/bp"));
const runs = Number(option("runs") ?? 3);
const write = argv.includes("--write");
const IDLE_MS = 2000;

interface Mem {
  rss: number;
  anon: number;
  file: number;
  pss: number;
}

function mem(pid: number): Mem | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const roll = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const kb = (text: string, key: string) =>
      Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN) / 1024;
    return {
      rss: kb(status, "VmRSS"),
      anon: kb(status, "RssAnon"),
      file: kb(status, "RssFile"),
      pss: kb(roll, "Pss"),
    };
  } catch {
    return undefined;
  }
}

interface Sample {
  broker: Mem;
  janitor: Mem;
  launchMs: number;
  firstOpenMs: number;
  firstSnapshotMs: number;
}

/** Drops the file's pages from the page cache (written back first), so every run starts alike. */
function uncache(file: string): void {
  Bun.spawnSync(["sync", file]);
  Bun.spawnSync(["dd", `if=${file}`, "iflag=nocache", "count=0", "status=none"]);
}

async function once(bin: string, fxUrl: (p: string) => string): Promise<Sample> {
  uncache(bin);
  const home = mkdtempSync(join(tmpdir(), "bp-bench-mem-"));
  const env = cleanEnv({
    BROWSER_PILOT_HOME: home,
    BROWSER_PILOT_CLIENT_KEY: "bench-mem",
    BROWSER_PILOT_CHROME: CHROMIUM,
    BROWSER_PILOT_IDLE_MS: "900000",
  });
  const bp = async (args: string[]) => {
    const e = await exec([bin, ...args], { env, timeoutMs: 60_000 });
    if (e.code !== 0 && args[0] !== "disconnect") throw new Error(`bp ${args[0]}: ${(e.out || e.err).slice(0, 300)}`);
    return e;
  };
  let broker: number | undefined;
  try {
    const launch = await bp(["launch", "--headless"]);
    const open = await bp(["open", fxUrl("/form"), "--new"]);
    const snap = await bp(["snapshot"]);
    const elements = (readListing(JSON.parse(snap.out) as { elements?: unknown[] }).elements ?? []) as {
      r: number;
      n?: string;
    }[];
    const ref = (name: string) => String(elements.find((e) => e.n === name)?.r ?? "");
    for (const args of [["click", ref(CLICK_TARGET)], ["type", ref(TYPE_TARGET), "Ada"], ["eval", "1+1"], ["snapshot"]])
      await bp(args);
    broker = (
      JSON.parse(readFileSync(join(home, "broker-locator.json"), "utf8")) as {
        pid: number;
      }
    ).pid;
    const janitor = descendants(broker).find((p) => cmdline(p).includes("--browser-pilot-internal=janitor"));
    await Bun.sleep(IDLE_MS);
    const b = mem(broker);
    const j = janitor === undefined ? undefined : mem(janitor);
    if (!b || !j) throw new Error("broker or janitor not found");
    return {
      broker: b,
      janitor: j,
      launchMs: launch.ms,
      firstOpenMs: open.ms,
      firstSnapshotMs: snap.ms,
    };
  } finally {
    const tree = broker === undefined ? [] : [broker, ...descendants(broker)];
    await bp(["disconnect"]);
    if (broker !== undefined && alive(broker) && !(await waitGone([broker], 5000))) signalMarked([broker], "SIGTERM");
    if (!(await waitGone(tree, 10_000))) signalMarked(tree, "SIGKILL");
    rmSync(home, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

const fx = startFixtures();
const loadAtStart = loadavg();
const samples = builds.map(() => [] as Sample[]);
try {
  for (let i = 0; i < runs; i++) {
    const order = i % 2 ? [...builds.keys()].reverse() : [...builds.keys()];
    for (const k of order) samples[k]?.push(await once(builds[k] ?? "", fx.url));
  }
} finally {
  fx.stop();
}

const f = (x: number) => x.toFixed(1);
const lines: string[] = [];
const head = ["", ...builds.map((_, k) => (builds.length > 1 ? `build ${"abcd"[k]}` : "bp"))];
lines.push(`| ${head.join(" | ")} |`, `|---|${builds.map(() => "--:").join("|")}|`);
const row = (label: string, pick: (s: Sample) => number) =>
  lines.push(`| ${label} | ${samples.map((ss) => f(median(ss.map(pick)))).join(" | ")} |`);
row("broker RSS, MB", (s) => s.broker.rss);
row("  anonymous (heap), MB", (s) => s.broker.anon);
row("  file (the executable's pages), MB", (s) => s.broker.file);
row("  PSS, MB", (s) => s.broker.pss);
row("janitor RSS, MB", (s) => s.janitor.rss);
row("  anonymous (heap), MB", (s) => s.janitor.anon);
row("  file (the executable's pages), MB", (s) => s.janitor.file);
row("  PSS, MB", (s) => s.janitor.pss);
row("**RSS, both (as `ps -o rss` adds up), MB**", (s) => s.broker.rss + s.janitor.rss);
row("**PSS, both (shared pages once), MB**", (s) => s.broker.pss + s.janitor.pss);
row("`launch --headless`, ms", (s) => s.launchMs);
row("first `open --new`, ms", (s) => s.firstOpenMs);
row("first `snapshot`, ms", (s) => s.firstSnapshotMs);
const table = lines.join("\n");
console.log(table);

if (write) {
  const file = join(root, "docs/benchmarks.md");
  const doc = existsSync(file) ? readFileSync(file, "utf8") : "";
  const section = [
    MEMORY_SECTION,
    "## Memory of the helper processes, in parts",
    "",
    `Generated by \`bun bench/memory.ts${builds.length > 1 ? " <bp-a> <bp-b>" : ""} --write\`; run ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? "CPU"}, load average at start ${loadAtStart.map((x) => x.toFixed(2)).join(", ")}.`,
    "",
    `Each run: the executable's pages dropped from the page cache, a fresh home, \`launch --headless\`, \`open\` the form page, snapshot, click, type, eval, snapshot, then ${IDLE_MS / 1000} s idle; medians of ${runs} runs${builds.length > 1 ? ", the builds interleaved" : ""}.`,
    "",
    table,
    "",
  ].join("\n");
  writeFileSync(file, replaceSection(doc, MEMORY_SECTION, section));
  console.log(`wrote ${file}`);
}
