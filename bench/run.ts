/**
 * `npm run bench`: the same scenarios through bp and, when installed (`npm run bench:peers`),
 * agent-browser and @playwright/cli, on local fixture pages and the same Chromium. Prints the
 * table and writes docs/benchmarks.md. A measurement, not a test: nothing fails on a number.
 *
 * Options: --quick (few repetitions; writes only with --out), --only=warm,navigate,snapshot,act,
 * widgets,screenshot,cold,parallel (memory is always measured), --no-peers, --skip=<tool,…>, --out=<file>.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { aboveFloor } from "./lib/above-floor.ts";
import { startFixtures } from "./lib/fixtures.ts";
import { Results, type Ctx } from "./lib/measure.ts";
import { cmdline, markedPids, signalMarked, waitGone } from "./lib/proc.ts";
import { describeMachine, markdown, table } from "./lib/report.ts";
import { keptFrom } from "./lib/sections.ts";
import { coldStart, navigation, screenshot, warmCommands } from "./scenarios/basic.ts";
import { describeMemory, memory } from "./scenarios/memory.ts";
import { actions, snapshots } from "./scenarios/observe.ts";
import { parallelAgents } from "./scenarios/parallel.ts";
import { widgetActions } from "./scenarios/widgets.ts";
import { AgentBrowserTool } from "./tools/agent-browser.ts";
import { BpTool } from "./tools/bp.ts";
import { PlaywrightCliTool } from "./tools/playwright-cli.ts";
import type { Tool } from "./tools/types.ts";

const root = resolve(import.meta.dir, "..");
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = flag("quick");
const only = option("only")?.split(",");
const outFile = option("out") ?? (quick ? undefined : join(root, "docs/benchmarks.md"));
const log = (m: string) => console.error(m);

const scenarios: [string, (ctx: Ctx) => Promise<void>][] = [
  ["warm", warmCommands],
  ["navigate", navigation],
  ["snapshot", snapshots],
  ["act", actions],
  ["widgets", widgetActions],
  ["screenshot", screenshot],
  ["cold", coldStart],
  ["parallel", parallelAgents],
];

const tools: Tool[] = [new BpTool(root), new AgentBrowserTool(root), new PlaywrightCliTool(root)];
const results = new Results();
const fx = startFixtures();
const outDir = mkdtempSync(join(tmpdir(), "bp-bench-out-"));
const ctx: Ctx = { tools, fx, results, quick, outDir, log };
const started = new Date();
let cleaning: Promise<void> | undefined;

async function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const t of tools) {
      try {
        await t.shutdown();
      } catch (e) {
        log(`shutdown ${t.id}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    fx.stop();
    rmSync(outDir, { recursive: true, force: true });
    const left = markedPids();
    if (left.length) {
      log(
        `stopping ${left.length} leftover processes: ${left.map((p) => `${p} ${cmdline(p).slice(0, 60)}`).join("; ")}`,
      );
      signalMarked(left, "SIGTERM");
      if (!(await waitGone(left, 5000))) signalMarked(left, "SIGKILL");
    }
  })();
  return cleaning;
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    log(`\n${sig}: stopping everything the bench started…`);
    void cleanup().then(() => process.exit(130));
  });
}

try {
  for (const t of tools) {
    if (flag("no-peers") && t.id !== "bp") t.skipped = "--no-peers";
    else if (t.id !== "bp" && option("skip")?.split(",").includes(t.id)) t.skipped = "--skip";
    else await t.init();
    log(
      `${t.id}: ${t.skipped ? `skipped (${t.skipped})` : t.version}${t.missing.size ? `; not available yet: ${[...t.missing].join(", ")}` : ""}`,
    );
  }
  const bp = tools[0];
  if (!bp || bp.skipped) throw new Error(`bp: ${bp?.skipped ?? "missing"}`);
  const machine = await describeMachine(tools, root);

  for (const t of tools) {
    if (t.skipped) continue;
    try {
      await t.start(fx.url("/form"));
    } catch (e) {
      if (t.id === "bp") throw e;
      t.skipped = `could not start offline: ${e instanceof Error ? e.message : String(e)}`;
      log(`${t.id}: ${t.skipped}`);
    }
  }
  await Bun.sleep(1000);
  log("memory, idle");
  describeMemory(ctx);
  await memory(ctx, "idle");

  for (const [id, run] of scenarios) {
    if (only && !only.includes(id)) continue;
    log(`${id}…`);
    await run(ctx);
  }
  aboveFloor(
    results,
    tools.filter((t) => !t.skipped),
  );
  log("memory, after the run");
  await memory(ctx, "after the run");

  if (bp.missing.size) {
    results.notes.push(
      `bp commands not built yet in this executable: ${[...bp.missing].map((c) => `\`${c}\``).join(", ")}; their rows ` +
        "say “not available yet” for bp (the scenario detects them with `bp <command> --help`), peers are still measured.",
    );
  }
  for (const t of tools) if (t.skipped) results.notes.push(`${t.id} skipped: ${t.skipped}.`);
  results.notes.push(
    "Peers are installed with `npm run bench:peers` (`npm install --no-save`, pinned to the versions studied in " +
      "peers.md: unpinned, npm under Node 20 resolves agent-browser to 0.27.0, the last release whose engines field " +
      "accepts Node 20); nothing is downloaded outside the npm registry, and no peer browser download is run. agent-browser " +
      "runs its linux binary from the npm tarball with `AGENT_BROWSER_EXECUTABLE_PATH=/usr/bin/chromium`, " +
      "`AGENT_BROWSER_ARGS` (no-sandbox + closed-network flags) and `AGENT_BROWSER_NO_VERSION_CHECK=1`; playwright-cli " +
      "runs under Node with a workspace `.playwright/cli.config.json` (executablePath, chromiumSandbox false, the same " +
      "flags) and `NO_UPDATE_NOTIFIER=1`. bp runs `dist/bp` with a private `BROWSER_PILOT_HOME`; its own launch adds " +
      "the same flags. Every tool gets private HOME/state directories, removed afterwards.",
    "Isolation differs by design: bp serves many agents from one broker and one browser (tabs owned per client " +
      "key); each agent-browser or playwright-cli session is its own daemon and browser, so their 4-agent figure " +
      "includes starting 4 browsers.",
    "Figures come from a shared 2-core machine; other work running at the same time shows up as wide min–max ranges.",
  );
  const seconds = (Date.now() - started.getTime()) / 1000;
  log(`\n${table(results, tools)}\n`);
  if (outFile) {
    // The sections of bench/batch.ts, phases.ts and memory.ts are theirs: kept as they are.
    const kept = existsSync(outFile) ? readFileSync(outFile, "utf8") : "";
    const rest = kept.slice(keptFrom(kept));
    writeFileSync(outFile, markdown(results, tools, machine, { started, seconds, quick }) + (rest ? `\n${rest}` : ""));
    log(`wrote ${outFile} (${Math.round(seconds)} s)`);
  }
} catch (e) {
  log(`bench failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
