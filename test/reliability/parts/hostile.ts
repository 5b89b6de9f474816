/**
 * Hostile pages: every command on them must get a bounded answer (one JSON line of bounded
 * size, within its deadline, with a code an agent can act on), and the broker must stay
 * healthy for an agent on an ordinary tab.
 */
import { codeOf, makeLab, rawLineBreak, replyProblem, running, type Json, type Lab } from "../lib/lab.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
import { startSite } from "../lib/site.ts";

const KEY = "hostile-agent";
const SENTINEL = "hostile-sentinel";
const MAX_REPLY_BYTES = 256 * 1024;
/** Beyond the command's own deadline, for the CLI to hear the broker's answer. */
const GRACE_MS = 5_000;
/** Titles and URLs a page chose: at most 500 characters and an ellipsis in any reply. */
const TITLE_BOUND = 501;

interface HostilePage {
  path: string;
  what: string;
  /** The page replaces its document all the time. */
  navigates?: boolean;
  /** Timeout per command: pages that never answer cost their whole deadline. */
  timeoutMs: number;
  short: boolean;
}

const PAGES: HostilePage[] = [
  {
    path: "/hostile/forged",
    what: "forged refs, JSON and line separators in text and names",
    timeoutMs: 8000,
    short: true,
  },
  {
    path: "/hostile/builtins",
    what: "overridden builtins (JSON, Array, Function, DOM queries, listeners)",
    timeoutMs: 8000,
    short: true,
  },
  { path: "/hostile/busy", what: "while(1) on the main thread", timeoutMs: 3000, short: true },
  { path: "/hostile/alerts", what: "an endless alert loop", timeoutMs: 5000, short: true },
  { path: "/hostile/title", what: "a 1 MB title, a 1 MB URL and a 100 KB button name", timeoutMs: 8000, short: true },
  { path: "/hostile/dom", what: "200,000 elements", timeoutMs: 20000, short: false },
  {
    path: "/hostile/deep",
    what: "5,000-deep nesting, 200 nested shadow roots, nested iframes",
    timeoutMs: 10000,
    short: true,
  },
  { path: "/hostile/reload", navigates: true, what: "reloading every 30 ms", timeoutMs: 5000, short: true },
  {
    path: "/hostile/history",
    navigates: true,
    what: "pushState and title change every 1 ms",
    timeoutMs: 5000,
    short: false,
  },
  { path: "/hostile/hop", navigates: true, what: "navigating to a new URL every 20 ms", timeoutMs: 5000, short: false },
  { path: "/hostile/bigvalue", what: "a 50 MB eval result", timeoutMs: 8000, short: false },
];

function commandsFor(page: HostilePage, scale: "short" | "full"): string[][] {
  const base = [["snapshot"], ["eval", "document.title.length"], ["click", "1"], ["read"]];
  const more = [
    ["tabs"],
    ["search", "Item"],
    ["find", "button"],
    ["type", "2", "hello"],
    ["press", "Tab"],
    ["scroll", "down"],
    ["screenshot", "hostile.png"],
    ["wait", "--text", "never here", "--timeout", "1000"],
    ["eval", "window"],
    ["snapshot", "--diff"],
  ];
  if (page.path === "/hostile/bigvalue") base.push(["eval", "'x'.repeat(5e7)"]);
  return scale === "short" ? base : [...base, ...more];
}

async function closeTab(lab: Lab, timeoutMs: number): Promise<string | undefined> {
  // A page blocked in a dialog loop needs its dialogs answered before anything else runs.
  for (let i = 0; i < 3; i++) {
    const r = await lab.bp(["--timeout", String(timeoutMs), "close"], {
      key: KEY,
      killAfterMs: timeoutMs + GRACE_MS + 5000,
    });
    if (r.json?.ok === true) return undefined;
    const dialog = (r.json?.context as { dialog?: string } | undefined)?.dialog;
    if (codeOf(r) === "dialog_pending" && dialog)
      await lab.bp(["dialog", dialog, "--dismiss"], { key: KEY, killAfterMs: 20_000 });
    else return `close: ${codeOf(r)} ${r.stdout.slice(0, 200)}`;
  }
  return "close: still blocked after answering 3 dialogs";
}

export const hostilePart: Part = {
  name: "hostile",
  title: "Hostile pages",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const reps = ctx.reps ?? (ctx.scale === "full" ? 2 : 1);
    const pages = PAGES.filter((p) => ctx.scale === "full" || p.short);
    const site = startSite();
    const lab = makeLab();
    const rows = {
      bounded: new Tally(
        `commands on hostile pages (${pages
          .filter((p) => !p.navigates)
          .map((p) => p.what)
          .join("; ")})`,
        `one JSON line ≤ ${MAX_REPLY_BYTES / 1024} KiB within the deadline + ${GRACE_MS / 1000} s, never internal_error`,
      ),
      navigating: new Tally(
        `commands on pages that never stop navigating (${pages
          .filter((p) => p.navigates)
          .map((p) => p.what)
          .join("; ")})`,
        "the same",
      ),
      healthy: new Tally(
        "ordinary agent on another tab after each hostile page",
        "answers in < 5 s from the same broker",
      ),
      closed: new Tally("closing each hostile tab", "closed"),
      titles: new Tally(
        "a 1 MB page title and URL in every reply (open, snapshot, read, tabs, status, …)",
        `title and url ≤ ${TITLE_BOUND} characters`,
      ),
      builtins: new Tally(
        "click and type on a page that overrides builtins",
        "click counted once, typed value read back",
      ),
      separators: new Tally(
        "page-controlled U+2028, U+2029, U+0085 in JSON replies",
        "escaped (one line for every line reader)",
      ),
    };
    const codes = new Map<string, number>();
    let slowest = 0;
    let maxBytes = 0;
    try {
      const launched = await lab.bp(["launch", "--headless", "--executable", lab.chromium], {
        key: SENTINEL,
        killAfterMs: 60_000,
      });
      if (launched.json?.ok !== true) throw new Error(`launch: ${launched.stdout}${launched.stderr}`);
      const sentinelOpen = await lab.bp(["open", `${site.a}/`, "--new"], { key: SENTINEL, killAfterMs: 30_000 });
      if (sentinelOpen.json?.ok !== true) throw new Error(`sentinel open: ${sentinelOpen.stdout}`);
      const brokerPid = lab.brokerPid() ?? 0;
      for (let rep = 0; rep < reps; rep++) {
        for (const page of pages) {
          const t = String(page.timeoutMs);
          const opened = await lab.bp(["--timeout", t, "open", `${site.a}${page.path}`, "--new"], {
            key: KEY,
            killAfterMs: page.timeoutMs + GRACE_MS + 5000,
          });
          const openBad =
            replyProblem(opened, { maxBytes: MAX_REPLY_BYTES }) ??
            (codeOf(opened) === "internal_error" ? `internal_error: ${String(opened.json?.error)}` : undefined);
          const tally = page.navigates ? rows.navigating : rows.bounded;
          tally.record(openBad ? `open ${page.path}: ${openBad}` : undefined);
          const replies: { args: string[]; json?: Json; stdout: string }[] = [
            { args: ["open"], ...(opened.json ? { json: opened.json } : {}), stdout: opened.stdout },
          ];
          for (const args of commandsFor(page, ctx.scale)) {
            const r = await lab.bp(["--timeout", t, ...args], {
              key: KEY,
              killAfterMs: page.timeoutMs + GRACE_MS + 10_000,
            });
            slowest = Math.max(slowest, r.ms);
            maxBytes = Math.max(maxBytes, r.stdout.length);
            const code = codeOf(r);
            codes.set(code, (codes.get(code) ?? 0) + 1);
            const bad =
              replyProblem(r, { maxBytes: MAX_REPLY_BYTES }) ??
              (r.ms > page.timeoutMs + GRACE_MS
                ? `took ${Math.round(r.ms)} ms`
                : code === "internal_error"
                  ? `internal_error: ${String(r.json?.error)}`
                  : undefined);
            tally.record(bad ? `${args.join(" ")} on ${page.path}: ${bad}` : undefined);
            replies.push({ args, ...(r.json ? { json: r.json } : {}), stdout: r.stdout });
          }
          if (page.path === "/hostile/forged") {
            for (const r of replies)
              rows.separators.record(
                rawLineBreak(r.stdout)
                  ? `${r.args.join(" ")}: raw line break in ${JSON.stringify(r.stdout.slice(0, 120))}`
                  : undefined,
              );
          }
          if (page.path === "/hostile/title") {
            const more = await Promise.all(
              [["tabs"], ["status"], ["reload"]].map(async (args) => ({
                args,
                ...(await lab.bp(args, { key: KEY, killAfterMs: 30_000 })),
              })),
            );
            for (const r of [...replies, ...more]) {
              const fields = [...r.stdout.matchAll(/"(title|url)":"((?:[^"\\]|\\.)*)"/g)];
              for (const m of fields)
                rows.titles.record(
                  (m[2] ?? "").length > TITLE_BOUND
                    ? `${r.args.join(" ")}: ${m[1]} of ${(m[2] ?? "").length} characters`
                    : undefined,
                );
            }
          }
          if (page.path === "/hostile/builtins") {
            await rows.builtins.attempt(async () => {
              const snap = await lab.bp(["snapshot"], { key: KEY, killAfterMs: 30_000 });
              const els = (snap.json?.elements ?? []) as { r?: number; n?: string }[];
              const press = els.find((e) => e.n === "Press")?.r;
              const field = els.find((e) => e.n === "Field")?.r;
              if (press === undefined || field === undefined)
                return `snapshot misses elements: ${snap.stdout.slice(0, 300)}`;
              const before = await lab.bp(["eval", "window.clicked || 0"], { key: KEY });
              const click = await lab.bp(["click", String(press)], { key: KEY, killAfterMs: 30_000 });
              const after = await lab.bp(["eval", "window.clicked || 0"], { key: KEY });
              if (click.json?.ok !== true || Number(after.json?.value) !== Number(before.json?.value) + 1)
                return `click: ${click.stdout.slice(0, 200)}; clicked ${String(before.json?.value)} → ${String(after.json?.value)}`;
              const typed = await lab.bp(["type", String(field), "typed text", "--clear"], {
                key: KEY,
                killAfterMs: 30_000,
              });
              return typed.json?.ok === true && typed.stdout.includes("typed text")
                ? undefined
                : `type: ${typed.stdout.slice(0, 300)}`;
            });
          }
          await rows.closed.attempt(async () => {
            const bad = await closeTab(lab, page.timeoutMs);
            return bad ? `${page.path}: ${bad}` : undefined;
          });
          await rows.healthy.attempt(async () => {
            const r = await lab.bp(["eval", "1+1"], { key: SENTINEL, killAfterMs: 30_000 });
            if (!running(brokerPid) || lab.brokerPid() !== brokerPid)
              return `after ${page.path}: broker ${brokerPid} gone`;
            return r.json?.ok === true && r.json.value === 2 && r.ms < 5000
              ? undefined
              : `after ${page.path}: sentinel ${codeOf(r)} in ${Math.round(r.ms)} ms`;
          });
          ctx.log(`hostile: ${page.path}`);
        }
      }
    } finally {
      await lab.cleanup();
      site.stop();
    }
    return {
      part: "hostile",
      title: hostilePart.title,
      rows: Object.values(rows).map((t) => t.row),
      wallSeconds: (performance.now() - started) / 1000,
      figures: {
        "codes seen": [...codes].map(([k, n]) => `${k} ×${n}`).join(", "),
        "slowest answer (ms)": Math.round(slowest),
        "largest reply (bytes)": maxBytes,
      },
    };
  },
};
