/**
 * `bun bench/episodes.ts [--episodes N] [--tasks a,b] [--peers DIR] [--write]`: MiniWoB-style
 * episodes (bench/lib/episode-pages.ts) played by the same scripted agent
 * (bench/lib/episode-agents.ts) with bp and with agent-browser, alternating per episode, each in
 * its own warm session on the same Chromium. Reports per task and in total: success (judged by
 * the page), characters the agent read, tool time (every call spawn to exit), calls, looks and
 * fallbacks to acting by visible text. `--peers DIR`: where `npm run bench:peers` installed
 * agent-browser (default: this checkout). `--write` also writes docs/episodes.md.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { abAgent, type Agent, bpAgent, type Trace } from "./lib/episode-agents.ts";
import { episode, TASK_NAMES } from "./lib/episode-pages.ts";
import { widgetRoutes } from "./lib/widgets.ts";
import { AgentBrowserTool } from "./tools/agent-browser.ts";
import { BpTool } from "./tools/bp.ts";
import type { Tool } from "./tools/types.ts";

const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const perTask = Number(opt("--episodes") ?? 5);
const tasks = opt("--tasks")?.split(",") ?? TASK_NAMES;
const root = resolve(import.meta.dir, "..");

const rewards = new Map<string, boolean>();
const routes = widgetRoutes();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const u = new URL(req.url);
    if (u.pathname === "/reward") {
      rewards.set(u.searchParams.get("ep") ?? "", u.searchParams.get("ok") === "1");
      return new Response(null, { status: 204 });
    }
    if (u.pathname === "/ep") {
      const ep = episode(u.searchParams.get("task") ?? "", Number(u.searchParams.get("seed")));
      return new Response(ep.html, {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      });
    }
    const route = routes[u.pathname];
    if (route)
      return new Response(route.body, { headers: { "content-type": route.type, "cache-control": "max-age=3600" } });
    return new Response(null, { status: u.pathname === "/favicon.ico" ? 204 : 404 });
  },
});
const origin = `http://127.0.0.1:${server.port}`;

interface Played extends Trace {
  ok: boolean;
}
const players: { tool: Tool; agent: Agent }[] = [
  { tool: new BpTool(root), agent: bpAgent },
  { tool: new AgentBrowserTool(resolve(opt("--peers") ?? root)), agent: abAgent },
];
const results = new Map<string, Played[]>();
/** The last failure of each tool on each task, as the agent saw it. */
const failures = new Map<string, string>();

async function rewardOf(key: string): Promise<boolean> {
  for (let i = 0; i < 40 && !rewards.has(key); i++) await Bun.sleep(50);
  return rewards.get(key) === true;
}

try {
  for (const p of players) {
    await p.tool.init();
    if (p.tool.skipped) console.error(`${p.tool.id}: skipped (${p.tool.skipped})`);
    else await p.tool.start(`${origin}/ep?task=click-button&seed=0`);
  }
  const live = players.filter((p) => !p.tool.skipped);
  for (let seed = 1; seed <= perTask; seed++) {
    for (const task of tasks) {
      const order = seed % 2 ? live : [...live].reverse();
      for (const { tool, agent } of order) {
        const query = `task=${task}&seed=${seed}&tool=${tool.id}`;
        const ep = episode(task, seed);
        const trace = await agent.play(`${origin}/ep?${query}`, ep.instruction, ep.goal, (a) => tool.run(a));
        const ok = trace.error === undefined && (await rewardOf(query));
        const list = results.get(`${tool.id}|${task}`) ?? [];
        list.push({ ...trace, ok });
        results.set(`${tool.id}|${task}`, list);
        if (!ok) {
          const why = trace.error ?? "the page judged it failed";
          console.error(`${tool.id} ${task} seed ${seed}: ${why}`);
          failures.set(`${tool.id}|${task}`, why);
        }
      }
    }
  }
  const report = render(live.map((p) => p.tool));
  console.log(report);
  if (argv.includes("--write")) writeFileSync(resolve(root, "docs/episodes.md"), report);
} finally {
  for (const p of players) await p.tool.shutdown();
  server.stop(true);
}

function summary(list: Played[]): string {
  const n = list.length || 1;
  const avg = (f: (p: Played) => number) => list.reduce((s, p) => s + f(p), 0) / n;
  const ok = list.filter((p) => p.ok).length;
  return `${ok}/${list.length} | ${Math.round(avg((p) => p.chars))} | ${Math.round(avg((p) => p.ms))} | ${avg((p) => p.calls).toFixed(1)} | ${avg((p) => p.byText).toFixed(1)}`;
}

function render(tools: Tool[]): string {
  const head = `| Task | ${tools.map((t) => `${t.id}: success | chars | ms | calls | by text`).join(" | ")} |`;
  const cols = tools.flatMap(() => ["--:", "--:", "--:", "--:", "--:"]);
  const row = (label: string, pick: (id: string) => Played[]) =>
    `| ${label} | ${tools.map((t) => summary(pick(t.id))).join(" | ")} |`;
  const all = (id: string) => tasks.flatMap((task) => results.get(`${id}|${task}`) ?? []);
  return [
    "# MiniWoB-style episodes: bp and agent-browser",
    "",
    "Generated by `bun bench/episodes.ts --write`; do not edit by hand. A measurement, not a test.",
    "",
    `Run: ${new Date().toISOString()}; ${perTask} episodes per task, tools alternating; ${tools.map((t) => `${t.id} ${t.version}`).join(", ")}.`,
    "Each episode: open the page, one look that must show the instruction, then the goal's steps by element name; characters and milliseconds are per episode, summed over every call (spawn to exit). The page judges success. See bench/lib/episode-agents.ts for the policy.",
    "",
    head,
    `|---|${cols.join("|")}|`,
    ...tasks.map((task) => row(task, (id) => results.get(`${id}|${task}`) ?? [])),
    row("**all**", all),
    "",
    "Failures (the last of each task, as the agent saw it):",
    "",
    ...(failures.size === 0
      ? ["- none"]
      : [...failures].map(([key, why]) => `- ${key.replace("|", ", ")}: ${why.replace(/\s+/g, " ").slice(0, 160)}`)),
    "",
  ].join("\n");
}
