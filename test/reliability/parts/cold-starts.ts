/**
 * Concurrent cold starts: N agents run their first command at the same moment with no broker
 * running. Exactly one broker (and one browser connection) must come of it, and every
 * command must get its right answer. Then N concurrent launches of one browser.
 */
import { listPageTargets, startUserBrowser } from "../../support/user-browser.ts";
import { codeOf, LOOPBACK_FLAGS, makeLab, replyProblem, until, type Lab, type Reply } from "../lib/lab.ts";
import { trackRoot } from "../lib/cpu.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
import { startSite } from "../lib/site.ts";

interface Mixed {
  args: string[];
  /** Right answers; a command that needs the browser may run before or after the connect that brings it. */
  accept: readonly string[];
}

const NEEDS_BROWSER = ["ok", "browser_disconnected"];

function mix(n: number): Mixed[] {
  const kinds: Mixed[] = [
    { args: ["connect"], accept: ["ok"] },
    { args: ["commands"], accept: ["ok"] },
    { args: ["status"], accept: ["ok"] },
    { args: ["browsers"], accept: ["ok"] },
    { args: ["tabs"], accept: NEEDS_BROWSER },
    { args: ["dialogs"], accept: NEEDS_BROWSER },
    { args: ["connect"], accept: ["ok"] },
    // 300 ms may run out while the broker starts: the call then ends at its deadline, unsent.
    {
      args: ["wait", "--popup", "--timeout", "300"],
      accept: ["wait_timeout", "browser_disconnected", "command_expired"],
    },
    { args: ["eval", "1"], accept: ["no_selected_tab", "browser_disconnected"] },
    { args: ["schema", "open"], accept: ["ok"] },
  ];
  return Array.from({ length: n }, (_, i) => kinds[i % kinds.length] as Mixed);
}

async function settleOne(lab: Lab, what: string): Promise<string | undefined> {
  // Losers of the start-up race exit on their own; give them a moment.
  try {
    await until(() => lab.brokers().length === 1, 5000, "one broker");
  } catch {
    return `${lab.brokers().length} brokers running after ${what}`;
  }
  return lab.janitors().length > 1 ? `${lab.janitors().length} janitors after ${what}` : undefined;
}

async function stopAll(lab: Lab): Promise<void> {
  for (const pid of [...lab.brokers(), ...lab.janitors()]) process.kill(pid, "SIGKILL");
  await until(() => lab.brokers().length === 0 && lab.janitors().length === 0, 10_000, "old broker gone");
}

export const coldStartsPart: Part = {
  name: "cold-starts",
  title: "Concurrent cold starts",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const n = ctx.scale === "full" ? 50 : 10;
    const rounds = ctx.reps ?? (ctx.scale === "full" ? 5 : 1);
    const site = startSite();
    const user = await startUserBrowser({ url: `${site.a}/`, args: LOOPBACK_FLAGS });
    trackRoot(user.home);
    const lab = makeLab({ HOME: user.home });
    const launchLab = makeLab();
    const mixed = new Tally(
      `${n} concurrent cold starts of mixed commands (connect, tabs, status, commands, wait, eval, …), ${rounds} round(s)`,
      "every answer right, exactly one broker and one janitor",
    );
    // The reproduction size; each failed launch can leave a Chromium behind, so one round.
    const nLaunch = ctx.scale === "full" ? 30 : 10;
    const launches = new Tally(
      `${nLaunch} concurrent 'bp launch --headless' (broker up, no browser yet), 1 round`,
      "all ok, one broker, one Chromium",
    );
    const figures: Record<string, string | number> = {};
    let slowest = 0;
    try {
      await until(async () => (await listPageTargets(user.port)).length > 0, 10_000, "user tab");
      for (let round = 0; round < rounds; round++) {
        const plan = mix(n);
        const replies: Reply[] = await Promise.all(
          plan.map((m, i) => lab.bp(m.args, { key: `cold-${i}`, killAfterMs: 60_000 })),
        );
        plan.forEach((m, i) => {
          const r = replies[i] as Reply;
          slowest = Math.max(slowest, r.ms);
          const bad = replyProblem(r);
          mixed.record(
            bad
              ? `${m.args.join(" ")}: ${bad}`
              : m.accept.includes(codeOf(r))
                ? undefined
                : `${m.args.join(" ")}: ${codeOf(r)} ${r.stdout.slice(0, 200)}`,
          );
        });
        const one = await settleOne(lab, "mixed cold starts");
        if (one) mixed.record(one);
        await stopAll(lab);

        ctx.log(`cold-starts: round ${round + 1}/${rounds}`);
      }
      {
        // The broker is up but has no browser yet: every launch must share one attempt.
        await launchLab.bp(["commands"], { key: "launch-warm", killAfterMs: 30_000 });
        const lr: Reply[] = await Promise.all(
          Array.from({ length: nLaunch }, (_, i) =>
            launchLab.bp(["launch", "--headless", "--executable", launchLab.chromium], {
              key: `launch-${i}`,
              killAfterMs: 90_000,
            }),
          ),
        );
        for (const r of lr)
          launches.record(
            replyProblem(r) ?? (r.json?.ok === true ? undefined : `launch: ${codeOf(r)} ${r.stdout.slice(0, 200)}`),
          );
        const oneL = await settleOne(launchLab, "concurrent launches");
        if (oneL) launches.record(oneL);
        if (launchLab.launched().length !== 1)
          launches.record(`${launchLab.launched().length} Chromium processes after concurrent launches`);
        await stopAll(launchLab);
        for (const pid of launchLab.launched()) process.kill(pid, "SIGKILL");
      }
      figures["slowest cold-start answer (ms)"] = Math.round(slowest);
    } finally {
      await lab.cleanup();
      await launchLab.cleanup();
      await user.stop();
      site.stop();
    }
    return {
      part: "cold-starts",
      title: coldStartsPart.title,
      rows: [mixed.row, launches.row],
      wallSeconds: (performance.now() - started) / 1000,
      figures,
    };
  },
};
