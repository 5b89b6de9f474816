/**
 * Cross-agent probes: one key's tab ids, command ids, dialogs, refs and request ids, used by
 * another key, must be refused exactly as ids that never existed are (no existence leak).
 */
import { codeOf, makeLab, replyProblem, type Json, type Lab, type Reply } from "../lib/lab.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
import { startSite } from "../lib/site.ts";

const OWNER = "xa-owner";
const ALL = "xa-prober-all";
const OWN = "xa-prober-own";

/** The reply with the probed id and per-call noise (command ids) taken out. */
function normal(r: Reply, id: string): string {
  const j: Json = structuredClone(r.json ?? { unparsable: r.stdout });
  if (j.context && typeof j.context === "object") delete j.context.commandId;
  return JSON.stringify(j).split(id).join("ID");
}

async function ok(lab: Lab, args: string[], key: string, env?: Record<string, string>): Promise<Json> {
  const r = await lab.bp(args, { key, killAfterMs: 30_000, ...(env ? { env } : {}) });
  if (r.json?.ok !== true) throw new Error(`${args.join(" ")} (${key}): ${r.stdout || r.stderr}`);
  return r.json;
}

export const crossAgentPart: Part = {
  name: "cross-agent",
  title: "Cross-agent probes",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const rounds = ctx.reps ?? (ctx.scale === "full" ? 10 : 1);
    const site = startSite();
    const lab = makeLab();
    const refused = new Tally(
      "another key's command ids, dialogs, tab ids, refs, request ids, network rules and downloads (status, cancel, answer, select, release, click, type, net show, net remove, download)",
      "100% refused, byte-identical to never-existing ids",
    );
    const invisible = new Tally(
      "another key's commands, dialogs, network rules, requests, downloads and (tab access own) tabs in listings and waits",
      "never listed or matched",
    );
    const requestIds = new Tally(
      "another key's request id reused",
      "runs as the caller's own call, never returns the other key's reply",
    );
    const untouched = new Tally(
      "owner's state after the probes",
      "dialog still pending, page unchanged, no command cancelled",
    );
    const own = { BROWSER_PILOT_TAB_ACCESS: "own" };
    try {
      await ok(lab, ["launch", "--headless", "--executable", lab.chromium], OWNER);
      for (let round = 0; round < rounds; round++) {
        // The owner: a tab, observations (refs), commands, a pending dialog and a running command.
        const opened = await ok(lab, ["open", `${site.a}/dialog`, "--new"], OWNER);
        const ownerTab = String(opened.tab);
        await ok(lab, ["snapshot"], OWNER);
        await ok(lab, ["eval", "window.secret = 42; 'set'", "--request-id", `xa-rid-${round}`], OWNER);
        const running = lab.spawn(["eval", "new Promise(r => setTimeout(() => r(7), 3000))"], { key: OWNER });
        await ok(lab, ["open", `${site.a}/form`, "--new"], OWNER);
        await ok(lab, ["eval", "setTimeout(() => confirm('Owner only?'), 50); 1"], OWNER);
        const dialog = String(
          ((await ok(lab, ["wait", "--dialog", "--timeout", "5000"], OWNER)).matched as { dialog: string }).dialog,
        );
        const cmds = (await ok(lab, ["commands", "--limit", "100"], OWNER)).commands as {
          id: string;
          status: string;
        }[];
        const cmdIds = cmds.map((c) => c.id);
        const active = cmds.find((c) => c.status === "dispatched")?.id;
        const ownerTabs = ((await ok(lab, ["tabs"], OWNER)).tabs as { id: string }[]).map((t) => t.id);
        // Network journal, rules and a download of the owner's, numbered past anything the probers will have.
        await ok(lab, ["open", `${site.a}/download`, "--new"], OWNER);
        const dlSnap = await ok(lab, ["snapshot"], OWNER);
        const getRef = String(
          (dlSnap.elements as { r?: number; n?: string }[]).find((e) => e.n === "Get file")?.r ?? 1,
        );
        await ok(lab, ["click", getRef], OWNER);
        const download = String(((await ok(lab, ["downloads"], OWNER)).downloads as { id: string }[])[0]?.id ?? "dl1");
        for (const pattern of ["*never-1*", "*never-2*", "*never-3*"]) await ok(lab, ["net", "block", pattern], OWNER);
        const ownerRules = ((await ok(lab, ["net", "rules"], OWNER)).rules as { id: string }[]).map((r) => r.id);
        const ownerRequests = ((await ok(lab, ["net", "--all"], OWNER)).requests as { id: number }[]).map((r) => r.id);

        // The probers: one sees all tabs, one only its own; each has its own tab and refs.
        await ok(lab, ["open", `${site.a}/`, "--new"], ALL);
        await ok(lab, ["snapshot"], ALL);
        await ok(lab, ["open", `${site.a}/`, "--new"], OWN, own);
        await ok(lab, ["snapshot"], OWN, own);
        const ownIds = new Set(((await ok(lab, ["tabs"], OWN, own)).tabs as { id: string }[]).map((t) => t.id));

        const fresh = () =>
          `c${[...crypto.getRandomValues(new Uint8Array(6))].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
        const freshDialog = () =>
          `d${1 + Math.floor(Math.random() * 8)}${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;
        const probes: {
          args: (id: string) => string[];
          theirs: string;
          never: string;
          key: string;
          env?: Record<string, string>;
        }[] = [];
        for (const id of [...cmdIds.slice(0, 3), ...(active ? [active] : [])]) {
          probes.push({ args: (x) => ["command", x], theirs: id, never: fresh(), key: ALL });
          probes.push({ args: (x) => ["cancel", x], theirs: id, never: fresh(), key: ALL });
        }
        probes.push({ args: (x) => ["dialog", x, "--accept"], theirs: dialog, never: freshDialog(), key: ALL });
        probes.push({
          args: (x) => ["dialog", x, "--dismiss"],
          theirs: dialog,
          never: freshDialog(),
          key: OWN,
          env: own,
        });
        for (const id of ownerTabs.filter((t) => !ownIds.has(t))) {
          probes.push({ args: (x) => ["tab", x], theirs: id, never: "t987654", key: OWN, env: own });
          probes.push({ args: (x) => ["tab", "release", x], theirs: id, never: "t987655", key: OWN, env: own });
        }
        const lastRequest = String(Math.max(...ownerRequests));
        const lastRule = ownerRules.at(-1) ?? "r3";
        for (const [key, env] of [
          [ALL, undefined],
          [OWN, own],
        ] as const) {
          const e = env ? { env } : {};
          probes.push({ args: (x) => ["net", "show", x], theirs: lastRequest, never: "987654", key, ...e });
          probes.push({ args: (x) => ["net", "remove", x], theirs: lastRule, never: "r98765", key, ...e });
          probes.push({ args: (x) => ["download", x], theirs: download, never: "dl98765", key, ...e });
        }
        // Refs: the owner's snapshot numbered more elements than the probers' pages have.
        for (const [key, env] of [
          [ALL, undefined],
          [OWN, own],
        ] as const) {
          probes.push({ args: (x) => ["click", x], theirs: "5", never: "9999", key, ...(env ? { env } : {}) });
          probes.push({ args: (x) => ["type", x, "hello"], theirs: "6", never: "9998", key, ...(env ? { env } : {}) });
        }
        for (const p of probes) {
          await refused.attempt(async () => {
            const opts = { key: p.key, killAfterMs: 30_000, ...(p.env ? { env: p.env } : {}) };
            const a = await lab.bp(p.args(p.theirs), opts);
            const b = await lab.bp(p.args(p.never), opts);
            const label = p.args("<id>").join(" ");
            const bad = replyProblem(a) ?? replyProblem(b);
            if (bad) return `${label}: ${bad}`;
            if (a.json?.ok !== false) return `${label} with the owner's id succeeded: ${a.stdout.slice(0, 200)}`;
            const na = normal(a, p.theirs);
            const nb = normal(b, p.never);
            return na === nb
              ? undefined
              : `${label}: owner's id answers ${na.slice(0, 160)} but a never-existing one ${nb.slice(0, 160)}`;
          });
        }

        await invisible.attempt(async () => {
          const listed = JSON.stringify(await ok(lab, ["commands", "--limit", "100"], ALL));
          const leak = cmdIds.find((id) => listed.includes(id));
          return leak ? `prober's commands list the owner's ${leak}` : undefined;
        });
        await invisible.attempt(async () => {
          const d = await ok(lab, ["dialogs"], ALL);
          return JSON.stringify(d).includes(dialog) || JSON.stringify(d).includes("Owner only")
            ? `prober's dialogs show the owner's: ${JSON.stringify(d)}`
            : undefined;
        });
        await invisible.attempt(async () => {
          const w = await lab.bp(["wait", "--dialog", "--timeout", "400"], { key: ALL, killAfterMs: 30_000 });
          return codeOf(w) === "wait_timeout" ? undefined : `prober's wait --dialog answered ${w.stdout.slice(0, 200)}`;
        });
        await invisible.attempt(async () => {
          const t = JSON.stringify(await ok(lab, ["tabs"], OWN, own));
          return /Dialog|Form/.test(t) ? `tab access own lists the owner's tabs: ${t.slice(0, 200)}` : undefined;
        });

        await invisible.attempt(async () => {
          const rules = JSON.stringify(await ok(lab, ["net", "rules"], ALL));
          const journal = JSON.stringify(await ok(lab, ["net"], ALL));
          const downloads = JSON.stringify(await ok(lab, ["downloads"], ALL));
          if (/never-\d/.test(rules)) return `prober's net rules show the owner's: ${rules.slice(0, 200)}`;
          if (/\/download|\/dialog|\/form|missing-/.test(journal))
            return `prober's request journal shows the owner's requests: ${journal.slice(0, 200)}`;
          return /file\.csv/.test(downloads)
            ? `prober's downloads show the owner's: ${downloads.slice(0, 200)}`
            : undefined;
        });

        await requestIds.attempt(async () => {
          const r = await lab.bp(["eval", "window.secret = 42; 'set'", "--request-id", `xa-rid-${round}`], {
            key: ALL,
            killAfterMs: 30_000,
          });
          if (r.json?.ok !== true) return `prober's call with the owner's request id failed: ${r.stdout.slice(0, 200)}`;
          const mine = await ok(lab, ["eval", "String(window.secret)"], ALL);
          return mine.value === "42"
            ? undefined
            : `prober's eval did not run in its own tab (secret there: ${String(mine.value)})`;
        });

        await untouched.attempt(async () => {
          const ds = (await ok(lab, ["dialogs"], OWNER)).dialogs as { id: string }[];
          if (!ds.some((d) => d.id === dialog)) return "the owner's dialog was answered by a prober";
          await ok(lab, ["dialog", dialog, "--dismiss"], OWNER);
          const first = await running.done;
          if (first.json?.ok !== true || first.json.value !== 7)
            return `the owner's running command was disturbed: ${first.stdout.slice(0, 200)}`;
          await ok(lab, ["tab", ownerTab], OWNER);
          const v = await ok(lab, ["eval", "String(window.secret)"], OWNER);
          return v.value === "42" ? undefined : `the owner's page changed: ${String(v.value)}`;
        });
        await ok(lab, ["net", "remove", "--all"], OWNER);
        for (const [key, env] of [
          [OWNER, undefined],
          [ALL, undefined],
          [OWN, own],
        ] as const)
          await ok(lab, ["close", "--all"], key, env);
        ctx.log(`cross-agent: round ${round + 1}/${rounds}`);
      }
    } finally {
      await lab.cleanup();
      site.stop();
    }
    return {
      part: "cross-agent",
      title: crossAgentPart.title,
      rows: [refused.row, invisible.row, requestIds.row, untouched.row],
      wallSeconds: (performance.now() - started) / 1000,
      figures: {},
    };
  },
};
