/**
 * Frozen processes and an unusable start-up path: the broker or the janitor stopped with
 * SIGSTOP (by pid) while agents act, resumed with SIGCONT; a live broker whose socket is gone;
 * a start-up lock nobody can take. Every call must answer within its --timeout plus a small
 * margin, a mutation the socket took is unknown_outcome, a request read after its deadline is
 * never run, and a tab Chrome creates late for a given-up `open --new` stays ours.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolvePaths } from "../../../src/shared/paths.ts";
import { codeOf, makeLab, replyProblem, running, until, type Lab, type Reply } from "../lib/lab.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
import { startSite } from "../lib/site.ts";

const KEY = "frozen-agent";
const TIMEOUT_MS = 2_000;
/** What a call may take beyond its --timeout: the CLI's grace for the broker's own answer, a probe, process start. */
const MARGIN_MS = 3_500;

async function ok(lab: Lab, args: string[]): Promise<Record<string, unknown>> {
  const r = await lab.bp(args, { key: KEY, killAfterMs: 60_000 });
  if (r.json?.ok !== true) throw new Error(`${args.join(" ")}: ${r.stdout || r.stderr}`);
  return r.json;
}

function refNamed(snapshot: Record<string, unknown>, name: string): string {
  const hit = (snapshot.elements as { r?: number; n?: string }[]).find((e) => e.n === name);
  if (hit?.r === undefined) throw new Error(`no element named ${name}`);
  return String(hit.r);
}

/** The slowest answer of each kind of call, beyond its --timeout. */
const slowest = new Map<string, number>();

/** Why a timed call missed its target, or undefined. */
function timely(label: string, r: Reply, codes: readonly string[], timeoutMs = TIMEOUT_MS): string | undefined {
  const kind = label.replace(/ x\d/, "");
  slowest.set(kind, Math.max(slowest.get(kind) ?? -Infinity, Math.round(r.ms - timeoutMs)));
  const bad = replyProblem(r);
  if (bad) return `${label}: ${bad}`;
  if (!codes.includes(codeOf(r))) return `${label}: answered ${codeOf(r)} (${r.stdout.slice(0, 200)})`;
  return r.ms > timeoutMs + MARGIN_MS
    ? `${label}: answered after ${Math.round(r.ms)} ms (--timeout ${timeoutMs})`
    : undefined;
}

function signal(pid: number | undefined, sig: "SIGSTOP" | "SIGCONT"): void {
  if (pid === undefined) throw new Error("no process to signal");
  process.kill(pid, sig);
}

export const frozenPart: Part = {
  name: "frozen",
  title: "Frozen processes and unusable start-up paths",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const reps = ctx.reps ?? (ctx.scale === "short" ? 1 : 5);
    const site = startSite();
    const rows = {
      frozenAnswer: new Tally(
        `click or 3 types with the broker stopped (SIGSTOP), --timeout ${TIMEOUT_MS}`,
        `unknown_outcome within --timeout + ${MARGIN_MS / 1000} s`,
      ),
      late: new Tally(
        "the same requests after SIGCONT",
        "never run (page unchanged), command_expired in their records",
      ),
      janitorAnswer: new Tally(
        `open --new with the janitor stopped, --timeout ${TIMEOUT_MS}`,
        `unknown_outcome within --timeout + ${MARGIN_MS / 1000} s`,
      ),
      orphan: new Tally(
        "the tab Chrome creates for it after SIGCONT",
        "never listed as user_tab; closed; disconnect stops the launched Chromium",
      ),
      noSocket: new Tally(
        "eval --timeout 1000 with a live broker's socket removed",
        `a documented code within --timeout + ${MARGIN_MS / 1000} s`,
      ),
      badLock: new Tally(
        "eval --timeout 1000 with no broker and a start-up lock that is a directory",
        `a documented code within --timeout + ${MARGIN_MS / 1000} s`,
      ),
    };
    try {
      for (let rep = 0; rep < reps; rep++) {
        const lab = makeLab();
        try {
          await ok(lab, ["launch", "--headless", "--executable", lab.chromium]);
          await ok(lab, ["open", `${site.a}/form`, "--new"]);
          const snap = await ok(lab, ["snapshot"]);
          const query = refNamed(snap, "Query");
          const count = refNamed(snap, "Count");
          const broker = lab.brokerPid();

          // The broker stopped: a click, then three types, each given up by its caller.
          signal(broker, "SIGSTOP");
          let resumed = false;
          try {
            const calls: [string, string[]][] = [
              ["click", ["click", count]],
              ...[1, 2, 3].map((i): [string, string[]] => [`type x${i}`, ["type", query, `x${i}`]]),
            ];
            for (const [label, args] of calls) {
              const r = await lab.bp(["--timeout", String(TIMEOUT_MS), ...args], { key: KEY, killAfterMs: 30_000 });
              rows.frozenAnswer.record(timely(`${label} (broker stopped)`, r, ["unknown_outcome"]));
            }
          } finally {
            signal(broker, "SIGCONT");
            resumed = true;
          }
          await rows.late.attempt(async () => {
            if (!resumed) return "not resumed";
            await Bun.sleep(1_500);
            const page = await ok(lab, [
              "eval",
              "JSON.stringify([document.querySelector('input').value, document.getElementById('count').textContent])",
            ]);
            if (page.value !== JSON.stringify(["", "Count"])) return `ran late: page reads ${String(page.value)}`;
            const recs = (await ok(lab, ["commands", "--limit", "10"])).commands as {
              method: string;
              status?: string;
            }[];
            const late = recs.filter((c) => c.method === "click" || c.method === "type");
            const statuses = late.map((c) => `${c.method}:${c.status ?? "?"}`);
            return late.length === 4 && late.every((c) => c.status === "expired")
              ? undefined
              : `records: ${statuses.join(", ")}`;
          });

          // The janitor stopped during open --new: Chrome creates the tab only after SIGCONT.
          const janitor = lab.janitors()[0];
          signal(janitor, "SIGSTOP");
          try {
            const r = await lab.bp(["--timeout", String(TIMEOUT_MS), "open", `${site.a}/form`, "--new"], {
              key: KEY,
              killAfterMs: 30_000,
            });
            rows.janitorAnswer.record(timely("open --new (janitor stopped)", r, ["unknown_outcome"]));
          } finally {
            signal(janitor, "SIGCONT");
          }
          await rows.orphan.attempt(async () => {
            await Bun.sleep(2_000);
            const tabs = (await ok(lab, ["tabs"])).tabs as { id: string; origin?: string; url?: string }[];
            const theirs = tabs.filter((t) => t.origin === "user_tab");
            if (theirs.length > 0) return `listed as the person's: ${JSON.stringify(theirs)}`;
            if (tabs.length !== 1)
              return `${tabs.length} tabs listed after the late open (1 expected): ${JSON.stringify(tabs).slice(0, 300)}`;
            await ok(lab, ["disconnect"]);
            try {
              await until(
                () => lab.launched().length === 0 && lab.brokers().length === 0,
                10_000,
                "launched Chromium and broker to exit",
              );
              return undefined;
            } catch {
              return `after disconnect: ${lab.launched().length} Chromium, ${lab.brokers().length} broker still running`;
            }
          });

          // A live broker whose socket file is gone: the call must not wait 20 s for a start.
          await ok(lab, ["commands"]);
          const live = lab.brokerPid();
          if (live !== undefined && running(live)) {
            rmSync(resolvePaths(lab.env).socket, { force: true });
            const r = await lab.bp(["eval", "1", "--timeout", "1000"], { key: KEY, killAfterMs: 30_000 });
            rows.noSocket.record(timely("eval with the socket removed", r, ["browser_disconnected"], 1000));
            process.kill(live, "SIGKILL");
            await until(() => !running(live), 10_000, "broker to exit");
          } else rows.noSocket.record("no live broker to remove the socket of");

          // No broker, and a start-up lock nobody can take.
          for (const pid of lab.brokers()) process.kill(pid, "SIGKILL");
          const lock = resolvePaths(lab.env).startupLock;
          rmSync(lock, { recursive: true, force: true });
          mkdirSync(lock);
          const r = await lab.bp(["eval", "1", "--timeout", "1000"], { key: KEY, killAfterMs: 30_000 });
          rows.badLock.record(
            timely(
              "eval with a directory for the start-up lock",
              r,
              ["command_expired", "browser_disconnected", "invalid_argument"],
              1000,
            ),
          );
          rmSync(lock, { recursive: true, force: true });
        } catch (err) {
          rows.frozenAnswer.record(`harness: ${err instanceof Error ? err.message : String(err)}`);
        } finally {
          for (const pid of [...lab.brokers(), ...lab.janitors()]) {
            try {
              process.kill(pid, "SIGCONT");
            } catch {
              // gone
            }
          }
          await lab.cleanup();
        }
        ctx.log(`frozen: round ${rep + 1}/${reps}`);
      }
    } finally {
      site.stop();
    }
    const figures = { "slowest answer beyond --timeout (ms)": [...slowest].map(([k, ms]) => `${k}: ${ms}`).join(", ") };
    slowest.clear();
    return {
      part: "frozen",
      title: frozenPart.title,
      rows: Object.values(rows).map((t) => t.row),
      wallSeconds: (performance.now() - started) / 1000,
      figures,
    };
  },
};
