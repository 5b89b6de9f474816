/**
 * Fuzzing: random and mutated argv for every command of the command table, random stdin and
 * environment, against a live broker connected to a person's browser; then raw authenticated
 * socket calls with arguments of any JSON type. No crash of the CLI or the broker, every
 * reply one JSON line with `ok` (and a known `code` on failure), no user tab closed.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { allCommands } from "../../../src/protocol/table.ts";
import { listPageTargets, startUserBrowser } from "../../support/user-browser.ts";
import { makeInvocation, rawArgs, type FuzzSetup } from "../lib/fuzz-gen.ts";
import { codeOf, LOOPBACK_FLAGS, makeLab, pool, replyProblem, rng, running, until, type Lab } from "../lib/lab.ts";
import { rawExchange, readLocator } from "../lib/raw-socket.ts";
import { trackRoot } from "../lib/cpu.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
import { startSite } from "../lib/site.ts";

const ANCHOR = "fz-anchor";
const KEYS = ["fz-0", "fz-1", "fz-2", "fz-3", "fz-4", "browser-pilot-cli"];
const CHECK_EVERY = 200;
/** Longer than any deadline a fuzzed call can ask for (60 s default + grace). */
const HANG_MS = 75_000;
/** Commands a raw call may not run: they start, replace or stop browsers and brokers. */
const RAW_EXCLUDED = new Set(["launch", "connect", "disconnect"]);
/** CDP's words for "the document (or its execution context) went away during the call". */
export const DOCUMENT_GONE =
  /Inspected target navigated or closed|Cannot find context with specified id|Execution context was destroyed/;

async function checkpoint(lab: Lab, brokerPid: number): Promise<string | undefined> {
  if (!running(brokerPid)) return `broker ${brokerPid} died`;
  if (lab.brokerPid() !== brokerPid) return `broker replaced (${brokerPid} → ${String(lab.brokerPid())})`;
  const r = await lab.bp(["eval", "1+1"], { key: ANCHOR, killAfterMs: 30_000 });
  return r.json?.ok === true && r.json.value === 2 ? undefined : `anchor agent: ${codeOf(r)} ${r.stdout.slice(0, 200)}`;
}

/**
 * Fuzzed calls open tabs; close them now and then so the browser stays small. Each key then
 * gets a fresh tab on a task page, so fuzzed actions reach a real page rather than stopping
 * at no_selected_tab.
 */
async function tidy(lab: Lab, page: string | undefined): Promise<void> {
  await Promise.all(
    KEYS.map(async (key) => {
      // A fuzzed handoff would keep the key at human_control for minutes.
      await lab.bp(["handback"], { key, killAfterMs: 30_000 });
      await lab.bp(["close", "--all"], { key, killAfterMs: 30_000 });
      if (page) await lab.bp(["open", page, "--new"], { key, killAfterMs: 30_000 });
    }),
  );
}

export const fuzzPart: Part = {
  name: "fuzz",
  title: "Fuzzed invocations",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const n = ctx.count ?? (ctx.scale === "full" ? 10_000 : 120);
    const nRaw = Math.ceil(n / 5);
    // Most fuzzed calls wait on short deadlines rather than burn CPU: run many at once.
    const parallel = ctx.scale === "full" ? 12 : 3;
    const site = startSite();
    const user = await startUserBrowser({ url: `${site.a}/`, args: LOOPBACK_FLAGS });
    trackRoot(user.home);
    const lab = makeLab({ HOME: user.home });
    const rows = {
      cli: new Tally(
        `${n} fuzzed CLI invocations (every command, mutated argv, random stdin and env), seed ${ctx.seed}`,
        "0 CLI crashes, 0 hangs",
      ),
      json: new Tally(
        "their replies in JSON mode",
        "every reply one JSON line with ok, and a known code and error on failure",
      ),
      internal: new Tally("their replies, other causes", "no internal_error"),
      replaced: new Tally(
        "their replies, for a page that replaced its document during the call (history.back() in eval, popups)",
        "no internal_error",
      ),
      raw: new Tally(
        `${nRaw} raw authenticated socket calls with arguments of any JSON type`,
        "every reply JSON with ok and a known code, never internal_error",
      ),
      broker: new Tally(`broker checks every ${CHECK_EVERY} calls`, "same broker process, answering"),
      userTabs: new Tally("the person's tabs after fuzzing", "0 user tabs closed"),
    };
    const codes = new Map<string, number>();
    try {
      const commands = await allCommands();
      writeFileSync(join(lab.sandbox, "upload.txt"), "upload me");
      const setup: FuzzSetup = { commands, site, sandbox: lab.sandbox, home: lab.home, keys: KEYS };
      const connect = await lab.bp(["connect"], { key: ANCHOR, killAfterMs: 60_000 });
      if (connect.json?.ok !== true) throw new Error(`connect: ${connect.stdout}${connect.stderr}`);
      const anchorTab = await lab.bp(["open", `${site.a}/second`, "--new"], { key: ANCHOR, killAfterMs: 30_000 });
      if (anchorTab.json?.ok !== true) throw new Error(`anchor open: ${anchorTab.stdout}`);
      // The person's page may still be loading under load: wait for its title, or the row counts nothing.
      const userTabs =
        (await until<string[] | undefined>(
          async () => {
            const ids = (await listPageTargets(user.port)).filter((t) => t.title === "Home").map((t) => t.id);
            return ids.length > 0 ? ids : undefined;
          },
          20_000,
          "the person's tab titled Home",
        )) ?? [];
      let brokerPid = lab.brokerPid() ?? 0;
      await tidy(lab, `${site.a}/form`);
      const rand = rng(ctx.seed);
      const plan = Array.from({ length: n }, () => makeInvocation(rand, setup));
      for (let from = 0; from < n; from += CHECK_EVERY) {
        await pool(plan.slice(from, from + CHECK_EVERY), parallel, async (inv, i) => {
          const r = await lab.bp(inv.argv, {
            env: inv.env,
            killAfterMs: HANG_MS,
            ...(inv.stdin !== undefined ? { stdin: inv.stdin } : {}),
          });
          const label = `#${from + i} ${JSON.stringify(inv.argv).slice(0, 160)} env ${JSON.stringify(inv.env).slice(0, 100)}`;
          const crashed =
            r.hung || (r.exit !== 0 && r.exit !== 1) || /^\s+at .+:\d+:\d+\)?$|panic:|Bun has crashed/m.test(r.stderr);
          rows.cli.record(
            crashed ? `${label}: ${replyProblem(r, { text: true }) ?? r.stderr.slice(0, 200)}` : undefined,
          );
          if (!inv.text && !crashed) {
            const bad = replyProblem(r);
            rows.json.record(bad ? `${label}: ${bad}` : undefined);
            const code = codeOf(r);
            codes.set(code, (codes.get(code) ?? 0) + 1);
            const gone = code === "internal_error" && DOCUMENT_GONE.test(String(r.json?.error));
            const message = `${label}: ${String(r.json?.error).slice(0, 120)}`;
            rows.internal.record(code === "internal_error" && !gone ? message : undefined);
            rows.replaced.record(gone ? message : undefined);
          }
        });
        const bad = await checkpoint(lab, brokerPid);
        rows.broker.record(bad);
        if (bad) {
          // Go on with a new broker (the crash is counted); the anchor needs its tab back.
          await lab.bp(["connect"], { key: ANCHOR, killAfterMs: 60_000 });
          await lab.bp(["open", `${site.a}/second`, "--new"], { key: ANCHOR, killAfterMs: 30_000 });
          brokerPid = lab.brokerPid() ?? 0;
        }
        await tidy(lab, `${site.a}/form`);
        ctx.log(`fuzz: ${Math.min(from + CHECK_EVERY, n)}/${n}`);
      }

      // Raw calls: past the CLI's validation, straight to the broker with the token.
      const rawCommands = commands.filter((c) => c.runs !== "local" && !RAW_EXCLUDED.has(c.name));
      for (let i = 0; i < nRaw; i++) {
        const def = rawCommands[Math.floor(rand() * rawCommands.length)];
        if (!def) break;
        const args = rawArgs(rand, def, setup);
        const loc = readLocator(lab.home);
        const line = `${JSON.stringify({ op: "call", token: loc.token, protocol: 1, clientKey: KEYS[i % KEYS.length], command: def.name, args, invocation: crypto.randomUUID(), timeoutMs: 1000 + Math.floor(rand() * 2000), tabAccess: "all", mode: "json", cwd: lab.sandbox })}\n`;
        const out = await rawExchange(loc.endpoint, line, 30_000);
        let problem: string | undefined;
        try {
          const j = JSON.parse(out.line ?? "") as { ok?: unknown; code?: unknown };
          if (typeof j.ok !== "boolean") problem = "no boolean ok";
          else if (j.ok === false && typeof j.code !== "string") problem = "failure without a code";
          else if (j.code === "internal_error")
            problem = `internal_error ${String((j as { error?: unknown }).error).slice(0, 100)}`;
        } catch {
          problem = out.closed ? "connection closed without a reply" : "no reply";
        }
        if (!problem && !running(loc.pid)) problem = "broker died";
        rows.raw.record(problem ? `${def.name} ${JSON.stringify(args).slice(0, 160)}: ${problem}` : undefined);
        if (!running(loc.pid)) {
          await lab.bp(["connect"], { key: ANCHOR, killAfterMs: 60_000 });
          await lab.bp(["open", `${site.a}/second`, "--new"], { key: ANCHOR, killAfterMs: 30_000 });
        }
        if (i % 100 === 99) await tidy(lab, `${site.a}/form`);
      }
      rows.broker.record(await checkpoint(lab, brokerPid));
      await tidy(lab, undefined);
      const left = (await listPageTargets(user.port)).map((t) => t.id);
      for (const id of userTabs) rows.userTabs.record(left.includes(id) ? undefined : `user tab ${id} closed`);
    } finally {
      await lab.cleanup();
      await user.stop();
      site.stop();
    }
    const top = [...codes].sort((a, b) => b[1] - a[1]);
    return {
      part: "fuzz",
      title: fuzzPart.title,
      rows: Object.values(rows).map((t) => t.row),
      wallSeconds: (performance.now() - started) / 1000,
      figures: { "reply codes (JSON mode)": top.map(([k, c]) => `${k} ×${c}`).join(", ") },
    };
  },
};
