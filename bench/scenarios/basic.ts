/**
 * Warm commands, navigation, screenshot and cold start.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMPILE_FLAGS } from "../../build/compile.ts";
import { rowMedian as median, runPlan, type Ctx } from "../lib/measure.ts";
import { cleanEnv, exec } from "../lib/proc.ts";
import { errorText, sequence, type Tool } from "../tools/types.ts";

async function goto(tool: Tool, url: string): Promise<void> {
  const e = await tool.run(tool.cmd.navigate(url));
  if (!tool.ok(e)) throw new Error(`navigate: ${errorText(e)}`);
}

/** A compiled Bun program that prints one line, built with bp's own flags: the runtime's floor. */
function buildRuntimeFloor(ctx: Ctx): string {
  const src = join(ctx.outDir, "runtime-floor.ts");
  const out = join(ctx.outDir, "runtime-floor");
  writeFileSync(src, 'console.log("0.0.0");\n');
  const p = Bun.spawnSync([process.execPath, "build", ...COMPILE_FLAGS, src, "--outfile", out], {
    stdout: "ignore",
    stderr: "pipe",
  });
  if (p.exitCode !== 0) throw new Error(`runtime floor build: ${p.stderr.toString().slice(0, 200)}`);
  return out;
}

export async function warmCommands(ctx: Ctx): Promise<void> {
  ctx.results.describe(
    "Warm commands",
    "session and tab already open on the form page. Trivial evaluation: bp `eval 1+1`, agent-browser `eval 1+1`, " +
      "playwright-cli `eval 1+1`. Status: bp `status`, agent-browser `session info`, playwright-cli `list`; both " +
      "ask their daemon once (bp's broker answers from what it knows, no browser call; agent-browser reports its " +
      "daemon, version and engine, bp also the agent's tab and recovery state). " +
      "Start-up floor: `--version`, which starts the process and exits without asking the broker or daemon; " +
      "for bp that is the Bun runtime's start plus the CLI's, the part of every bp call no broker work can save. " +
      "Bun runtime floor: a compiled Bun program that only prints one line, built with bp's compile flags, timed in " +
      "the same loop; agent-browser is a native executable with no runtime to start.",
  );
  const floor = buildRuntimeFloor(ctx);
  await runPlan(ctx, {
    section: "Warm commands",
    warmup: 3,
    runs: 15,
    setup: (t) => goto(t, ctx.fx.url("/form")),
    variants: (t) => [
      { key: "eval", fn: () => sequence(t, [t.cmd.eval("1+1")]) },
      { key: "status", fn: () => sequence(t, [t.cmd.status()]) },
      { key: "floor", fn: () => sequence(t, [t.cmd.version()]) },
      ...(t.id === "bp"
        ? [{ key: "runtime", fn: async () => ({ ms: (await exec([floor], { env: cleanEnv({}) })).ms, ok: true }) }]
        : []),
    ],
    rows: [
      { key: "runtime", label: "Bun runtime floor (compiled one-line program), ms", metric: "ms", only: "bp" },
      { key: "floor", label: "start-up floor (`--version`, no daemon call), ms", metric: "ms" },
      { key: "eval", label: "trivial command (`eval 1+1`), ms", metric: "ms" },
      { key: "status", label: "status, ms", metric: "ms" },
    ],
  });
  const rows = ctx.results.rows.filter((r) => r.section === "Warm commands");
  const runtime = median(rows[0], "bp");
  const parts = [
    ["`eval 1+1`", median(rows[2], "bp")],
    ["`status`", median(rows[3], "bp")],
  ] as const;
  if (runtime !== undefined && parts.every(([, ms]) => ms !== undefined)) {
    const share = parts.map(
      ([name, ms]) =>
        `${name} ${(ms ?? 0).toFixed(1)} ms, of which ${Math.round((100 * runtime) / (ms ?? 1))}% is the floor and ${((ms ?? 0) - runtime).toFixed(1)} ms bp's own`,
    );
    ctx.results.notes.push(
      `Bun runtime floor ${runtime.toFixed(1)} ms (the same for any program Bun compiles): ${share.join("; ")} (CLI, socket, broker, janitor, browser).`,
    );
  }
}

export async function navigation(ctx: Ctx): Promise<void> {
  ctx.results.describe(
    "Navigate",
    "the open tab goes to a small local page (a new URL each time): bp `open <url>`, agent-browser `open <url>`, " +
      "playwright-cli `goto <url>`. Open and see: the form page (a new URL each time) and its controls, the step " +
      "before an agent's first action there: bp `open <url> --snapshot`, agent-browser `open <url>` then " +
      "`snapshot -i`, playwright-cli `goto <url>` then `snapshot`; time and characters summed over the step. Back and see: " +
      "from another page (untimed: the form page, then it) back to the form page and its controls: bp `back --snapshot`, " +
      "agent-browser `back` then `snapshot -i`, playwright-cli `go-back` then `snapshot`.",
  );
  let n = 0;
  await runPlan(ctx, {
    section: "Navigation",
    warmup: 2,
    runs: 10,
    variants: (t) => {
      const look = t.cmd.observeAfterAction ?? t.cmd.snapshots[0]?.args ?? ["snapshot"];
      const openAndLook = (url: string) =>
        t.cmd.navigateAndLook ? [t.cmd.navigateAndLook(url)] : [t.cmd.navigate(url), look];
      return [
        { key: "main", fn: () => sequence(t, [t.cmd.navigate(ctx.fx.url(`/page?n=${++n}`))]) },
        { key: "look", fn: () => sequence(t, openAndLook(ctx.fx.url(`/form?n=${++n}`))) },
        {
          key: "back",
          fn: async () => {
            // Untimed: the form page, then another, so that back returns to the form.
            const setup = await sequence(t, [
              t.cmd.navigate(ctx.fx.url(`/form?n=${++n}`)),
              t.cmd.navigate(ctx.fx.url(`/page?n=${n}`)),
            ]);
            if (!setup.ok) return setup;
            return sequence(t, t.cmd.backAndLook ? [t.cmd.backAndLook] : [t.cmd.back, look]);
          },
        },
      ];
    },
    rows: [
      { key: "main", label: "open a local page, ms", metric: "ms" },
      { key: "look", label: "open the form page and see its controls (one agent step), ms", metric: "ms" },
      { key: "look", label: "open and see: characters to read, chars", metric: "chars" },
      { key: "back", label: "go back to the form page and see its controls (one agent step), ms", metric: "ms" },
      { key: "back", label: "back and see: characters to read, chars", metric: "chars" },
    ],
  });
}

export async function screenshot(ctx: Ctx): Promise<void> {
  ctx.results.describe(
    "Screenshot",
    "viewport PNG of the form page to an absolute path: bp `screenshot <file>`, agent-browser `screenshot <file>`, " +
      "playwright-cli `screenshot --filename=<file>`.",
  );
  await runPlan(ctx, {
    section: "Screenshot",
    warmup: 2,
    runs: 10,
    needs: "screenshot",
    setup: (t) => goto(t, ctx.fx.url("/form")),
    variants: (t) => [{ key: "main", fn: () => sequence(t, [t.cmd.screenshot(join(ctx.outDir, `${t.id}.png`))]) }],
    rows: [{ key: "main", label: "screenshot of the form page, ms", metric: "ms" }],
  });
}

export async function coldStart(ctx: Ctx): Promise<void> {
  ctx.results.describe(
    "Cold start",
    "from no broker/daemon and no browser to a first usable tab showing the form page: bp `launch --headless` + " +
      "`open <url> --new` (own home, persistent profile already created by the warm-up), agent-browser `open <url>` " +
      "in a fresh session, playwright-cli `open <url>` in a fresh session. Everything is stopped (untimed) before the " +
      "next run.",
  );
  await runPlan(ctx, {
    section: "Cold start",
    warmup: 1,
    runs: 5,
    variants: (t) => [
      {
        key: "main",
        fn: async () => {
          const s = await t.coldStart(ctx.fx.url("/form"));
          await t.coldStop();
          return s;
        },
      },
    ],
    rows: [{ key: "main", label: "no daemon → first usable tab, ms", metric: "ms" }],
  });
}
