/**
 * Soak: four agents drive their own tabs in the person's browser through the ordinary task
 * loop (observe, click, type, read, wait, navigate, open and close tabs) for thousands of
 * commands. Every command must succeed, the broker's memory must level off after warm-up,
 * and no target may be left behind.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { listPageTargets, startUserBrowser } from "../../support/user-browser.ts";
import { codeOf, LOOPBACK_FLAGS, makeLab, rssKiB } from "../lib/lab.ts";
import { trackRoot } from "../lib/cpu.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
import { startSite } from "../lib/site.ts";

const AGENTS = ["soak-a", "soak-b", "soak-c", "soak-d"];
const WARMUP_SHARE = 0.25;
const MAX_GROWTH = 0.1;

type Els = { r?: number; n?: string }[];

export const soakPart: Part = {
  name: "soak",
  title: "Soak",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const total = ctx.count ?? (ctx.scale === "full" ? 10_000 : 120);
    const perAgent = Math.ceil(total / AGENTS.length);
    const site = startSite();
    const user = await startUserBrowser({ url: `${site.a}/`, args: LOOPBACK_FLAGS });
    trackRoot(user.home);
    const lab = makeLab({ HOME: user.home });
    const rows = {
      errors: new Tally(
        `${perAgent * AGENTS.length} commands across ${AGENTS.length} agents (snapshot, click, type, eval, read, find, search, wait, scroll, press, tabs, open, open --new, close, screenshot)`,
        "0 errors",
      ),
      leaks: new Tally("targets after every agent closed its tabs", "0 leaked targets, user tabs intact"),
      rss: new Tally(
        `broker RSS from the end of warm-up (${WARMUP_SHARE * 100}% of commands) to the end`,
        `growth < ${MAX_GROWTH * 100}%`,
      ),
    };
    const figures: Record<string, string | number> = {};
    const samples: { done: number; broker: number; janitor: number }[] = [];
    let done = 0;
    const latencies: number[] = [];
    try {
      const c = await lab.bp(["connect"], { key: AGENTS[0] ?? "", killAfterMs: 60_000 });
      if (c.json?.ok !== true) throw new Error(`connect: ${c.stdout}${c.stderr}`);
      const userTabs = (await listPageTargets(user.port)).map((t) => t.id);
      const brokerPid = lab.brokerPid() ?? 0;
      const sample = () => {
        const janitor = lab.janitors()[0];
        samples.push({ done, broker: rssKiB(brokerPid) ?? 0, janitor: janitor ? (rssKiB(janitor) ?? 0) : 0 });
      };
      sample();
      const sampler = setInterval(sample, 2000);
      await Promise.all(
        AGENTS.map(async (key) => {
          let left = perAgent;
          let main = "";
          let els: Els = [];
          const run = async (args: string[]) => {
            if (left <= 0) return undefined;
            left--;
            const r = await lab.bp(args, { key, killAfterMs: 60_000 });
            done++;
            latencies.push(r.ms);
            rows.errors.record(
              r.json?.ok === true
                ? undefined
                : `${key}: ${args.join(" ").slice(0, 80)}: ${codeOf(r)} ${r.stdout.slice(0, 200)}${r.stderr.slice(0, 100)}`,
            );
            return r.json?.ok === true ? r.json : undefined;
          };
          const ref = (name: string) => String(els.find((e) => e.n === name)?.r ?? 0);
          const opened = await run(["open", `${site.a}/form`, "--new"]);
          main = String(opened?.tab ?? "");
          for (let cycle = 0; left > 0; cycle++) {
            if (cycle % 5 === 4) await run(["open", `${site.a}/form`]);
            const snap = await run(["snapshot"]);
            els = (snap?.elements ?? els) as Els;
            await run(["click", ref("Count")]);
            await run(["type", ref("Query"), `soak ${cycle}`, "--clear"]);
            await run(["eval", "document.title"]);
            await run(["read", "#out"]);
            await run(["find", "button"]);
            await run(["wait", "--selector", "#count"]);
            await run(["scroll", "down"]);
            await run(["press", "Tab"]);
            await run(["search", "Count"]);
            await run(["tabs"]);
            if (cycle % 10 === 9) {
              await run(["open", `${site.a}/second`, "--new"]);
              await run(["close"]);
              await run(["tab", main]);
            }
            if (cycle % 25 === 24) {
              const file = join(lab.sandbox, `${key}-${cycle}.png`);
              await run(["screenshot", file]);
              rmSync(file, { force: true });
            }
          }
        }),
      );
      clearInterval(sampler);
      sample();
      for (const key of AGENTS) {
        const r = await lab.bp(["close", "--all"], { key, killAfterMs: 30_000 });
        rows.errors.record(r.json?.ok === true ? undefined : `${key}: close --all: ${r.stdout.slice(0, 200)}`);
      }
      await rows.leaks.attempt(async () => {
        // Target.closeTarget answers once the close has begun; the page target goes when its
        // renderer has unloaded, which a starved machine can take a while to do.
        const until = Date.now() + 10_000;
        for (;;) {
          const now = await listPageTargets(user.port);
          const extra = now.filter((t) => !userTabs.includes(t.id));
          const lost = userTabs.filter((id) => !now.some((t) => t.id === id));
          if ((extra.length === 0 && lost.length === 0) || Date.now() > until) {
            return extra.length || lost.length
              ? `${extra.length} leaked target(s) ${JSON.stringify(extra.map((t) => t.url))}, ${lost.length} user tab(s) gone`
              : undefined;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      });
      const warm = samples.filter((s) => s.done >= total * WARMUP_SHARE);
      const warmAt = warm[0];
      const end = samples.at(-1);
      if (warmAt && end && ctx.scale === "full") {
        const growth = (end.broker - warmAt.broker) / warmAt.broker;
        rows.rss.record(
          growth < MAX_GROWTH
            ? undefined
            : `broker RSS ${warmAt.broker} → ${end.broker} KiB (+${(growth * 100).toFixed(1)}%)`,
        );
      }
      if (warmAt && end) {
        const peak = Math.max(...samples.map((s) => s.broker));
        figures["broker RSS KiB (start / end of warm-up / peak / end)"] =
          `${samples[0]?.broker} / ${warmAt.broker} / ${peak} / ${end.broker} (${(((end.broker - warmAt.broker) / warmAt.broker) * 100).toFixed(1)}% after warm-up)`;
        figures["janitor RSS KiB (end of warm-up / end)"] = `${warmAt.janitor} / ${end.janitor}`;
      }
      const sorted = [...latencies].sort((a, b) => a - b);
      figures["command latency ms (median / p95 / max)"] =
        `${Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0)} / ${Math.round(sorted[Math.floor(sorted.length * 0.95)] ?? 0)} / ${Math.round(sorted.at(-1) ?? 0)}`;
      figures["commands per second (4 agents)"] = (done / ((performance.now() - started) / 1000)).toFixed(1);
    } finally {
      await lab.cleanup();
      await user.stop();
      site.stop();
    }
    return {
      part: "soak",
      title: soakPart.title,
      rows: Object.values(rows)
        .map((t) => t.row)
        .filter((r) => r.tried > 0 || ctx.scale === "full"),
      wallSeconds: (performance.now() - started) / 1000,
      figures,
    };
  },
};
