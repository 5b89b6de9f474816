/**
 * kill -9 of the broker, the janitor or Chromium while an agent waits, clicks a link that
 * navigates, or types and submits a form. The agent must get a documented code within the
 * deadline; afterwards no user tab is closed and no managed tab or process of ours is left.
 */
import { listPageTargets, startUserBrowser, type UserBrowser } from "../../support/user-browser.ts";
import { codeOf, LOOPBACK_FLAGS, makeLab, replyProblem, running, until, type Lab } from "../lib/lab.ts";
import { trackRoot } from "../lib/cpu.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
import { hits, startSite } from "../lib/site.ts";

type Victim = "broker" | "janitor" | "chromium";
type Op = "wait" | "click" | "type";
type Host = "user" | "launched";

const KEY = "kill-agent";
const COMMAND_TIMEOUT_MS = 20_000;
/** From the kill to the agent's answer. */
const ANSWER_WITHIN_MS = 10_000;
const CLEANUP_WITHIN_MS = 10_000;

const EXPECTED: Record<Op, readonly string[]> = {
  wait: ["browser_disconnected"],
  click: ["unknown_outcome"],
  type: ["unknown_outcome"],
};

interface Scenario {
  host: Host;
  victim: Victim;
  op: Op;
}

function matrix(scale: "short" | "full", reps: number | undefined): Scenario[] {
  if (scale === "short" && reps === undefined) {
    return [
      { host: "user", victim: "broker", op: "wait" },
      { host: "user", victim: "janitor", op: "click" },
      { host: "launched", victim: "chromium", op: "type" },
    ];
  }
  const out: Scenario[] = [];
  for (let rep = 0; rep < (reps ?? 3); rep++) {
    for (const op of ["wait", "click", "type"] as const) {
      for (const victim of ["broker", "janitor"] as const) out.push({ host: "user", victim, op });
      for (const victim of ["broker", "janitor", "chromium"] as const) out.push({ host: "launched", victim, op });
    }
  }
  return out;
}

async function ok(lab: Lab, args: string[]): Promise<Record<string, unknown>> {
  const r = await lab.bp(args, { key: KEY, killAfterMs: 40_000 });
  if (r.json?.ok !== true) throw new Error(`${args.join(" ")}: ${r.stdout || r.stderr}`);
  return r.json;
}

function refNamed(snapshot: Record<string, unknown>, name: string): string {
  const els = snapshot.elements as { r?: number; n?: string }[];
  const hit = els.find((e) => e.n === name);
  if (hit?.r === undefined) throw new Error(`no element named ${name} in ${JSON.stringify(els).slice(0, 300)}`);
  return String(hit.r);
}

export const killsPart: Part = {
  name: "kills",
  title: "kill -9 during commands",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const site = startSite();
    const user: UserBrowser = await startUserBrowser({ url: `${site.a}/`, args: LOOPBACK_FLAGS });
    trackRoot(user.home);
    const rows = {
      answer: new Tally(
        "kill -9 of broker, janitor or Chromium during wait, a navigating click, type --submit",
        `documented code (wait: browser_disconnected, actions: unknown_outcome) within ${ANSWER_WITHIN_MS / 1000} s of the kill`,
      ),
      userTabs: new Tally("user tabs after each kill and its cleanup (person's browser)", "0 user tabs closed"),
      tabIds: new Tally(
        "tab ids of one key before and after a broker restart (person's browser)",
        "never reused: an old id answers tab_not_found",
      ),
      leftovers: new Tally("managed tabs and processes after each kill and its cleanup", "0 left"),
    };
    const codes = new Map<string, number>();
    let slowest = 0;
    const userLab = makeLab({ HOME: user.home });
    try {
      await until(async () => (await listPageTargets(user.port)).some((t) => t.title === "Home"), 10_000, "user tab");
      const userTabs = (await listPageTargets(user.port)).map((t) => t.id).sort();
      for (const s of matrix(ctx.scale, ctx.reps)) {
        const label = `${s.victim} during ${s.op} (${s.host} browser)`;
        const lab = s.host === "user" ? userLab : makeLab();
        try {
          if (s.host === "user") await ok(lab, ["connect"]);
          else await ok(lab, ["launch", "--headless", "--executable", lab.chromium]);
          await ok(lab, ["open", `${site.a}/form`, "--new"]);
          const snap = await ok(lab, ["snapshot"]);
          const oldIds = ((await ok(lab, ["tabs"])).tabs as { id: string }[]).map((t) => t.id);
          const before = hits.get("/slow-result") ?? 0;
          const args =
            s.op === "wait"
              ? ["wait", "--text", "never on this page"]
              : s.op === "click"
                ? ["click", refNamed(snap, "Slow link")]
                : ["type", refNamed(snap, "Query"), "hello", "--submit"];
          const run = lab.spawn(["--timeout", String(COMMAND_TIMEOUT_MS), ...args], {
            key: KEY,
            killAfterMs: COMMAND_TIMEOUT_MS + 15_000,
          });
          // Kill when the work is really under way: the wait dispatched, the navigation at the server.
          if (s.op === "wait")
            await until(
              async () =>
                JSON.stringify(
                  (await lab.bp(["commands", "--status", "dispatched"], { key: KEY })).json ?? {},
                ).includes('"wait"'),
              10_000,
              "wait dispatched",
            );
          else await until(() => (hits.get("/slow-result") ?? 0) > before, 10_000, "navigation reaching the server");
          const pid =
            s.victim === "broker" ? lab.brokerPid() : s.victim === "janitor" ? lab.janitors()[0] : lab.launched()[0];
          if (pid === undefined) throw new Error(`no ${s.victim} process to kill`);
          const killedAt = performance.now();
          process.kill(pid, "SIGKILL");
          await rows.answer.attempt(async () => {
            const r = await run.done;
            const after = performance.now() - killedAt;
            slowest = Math.max(slowest, after);
            const code = codeOf(r);
            codes.set(`${s.op}: ${code}`, (codes.get(`${s.op}: ${code}`) ?? 0) + 1);
            const bad = replyProblem(r);
            if (bad) return `${label}: ${bad}`;
            if (!EXPECTED[s.op].includes(code)) return `${label}: answered ${code} (${r.stdout.slice(0, 200)})`;
            return after > ANSWER_WITHIN_MS ? `${label}: answered after ${Math.round(after)} ms` : undefined;
          });

          if (s.victim === "broker" && s.host === "user") {
            await rows.tabIds.attempt(async () => {
              await ok(lab, ["connect"]);
              const now = ((await ok(lab, ["tabs"])).tabs as { id: string }[]).map((t) => t.id);
              const reused = now.filter((id) => oldIds.includes(id));
              if (reused.length > 0) return `${label}: ids ${reused.join(", ")} given again after the restart`;
              const old = await lab.bp(["tab", oldIds[0] ?? "t1"], { key: KEY, killAfterMs: 30_000 });
              return codeOf(old) === "tab_not_found"
                ? undefined
                : `${label}: old id ${oldIds[0]} answered ${codeOf(old)}`;
            });
          }
          // Recovery as an agent would do it, then the broker dies for good: everything of ours must go.
          if (s.victim !== "broker" && running(lab.brokerPid() ?? 0)) {
            if (s.host === "user") await ok(lab, ["connect"]);
            else if (s.victim === "janitor") await ok(lab, ["launch", "--headless", "--executable", lab.chromium]);
          }
          const broker = lab.brokerPid();
          if (broker !== undefined && running(broker)) process.kill(broker, "SIGKILL");
          await rows.leftovers.attempt(async () => {
            try {
              await until(
                async () =>
                  lab.janitors().length === 0 &&
                  lab.brokers().length === 0 &&
                  lab.launched().length === 0 &&
                  (s.host === "launched" || (await listPageTargets(user.port)).length <= userTabs.length),
                CLEANUP_WITHIN_MS,
                "cleanup",
              );
              return undefined;
            } catch {
              const extra =
                s.host === "user"
                  ? (await listPageTargets(user.port)).filter((t) => !userTabs.includes(t.id)).map((t) => t.title)
                  : [];
              return `${label}: left ${lab.janitors().length} janitor, ${lab.brokers().length} broker, ${lab.launched().length} Chromium, managed tabs ${JSON.stringify(extra)}`;
            }
          });
          if (s.host === "user") {
            await rows.userTabs.attempt(async () => {
              const now = (await listPageTargets(user.port)).map((t) => t.id);
              const lost = userTabs.filter((id) => !now.includes(id));
              return lost.length > 0 ? `${label}: ${lost.length} user tab(s) closed` : undefined;
            });
          }
        } catch (err) {
          rows.answer.record(`${label}: harness: ${err instanceof Error ? err.message : String(err)}`);
        } finally {
          // Leftovers are counted above; stop them now so the next scenario starts clean.
          for (const pid of [...lab.brokers(), ...lab.janitors()]) process.kill(pid, "SIGKILL");
          if (s.host === "launched") await lab.cleanup();
        }
        ctx.log(`kills: ${label}`);
      }
    } finally {
      await userLab.cleanup();
      await user.stop();
      site.stop();
    }
    return {
      part: "kills",
      title: killsPart.title,
      rows: Object.values(rows).map((t) => t.row),
      wallSeconds: (performance.now() - started) / 1000,
      figures: {
        "codes seen": [...codes].map(([k, n]) => `${k} ×${n}`).join(", "),
        "slowest answer after a kill (ms)": Math.round(slowest),
      },
    };
  },
};
