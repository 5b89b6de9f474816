/**
 * Pages that open a dialog while they load (an alert in an inline script, a confirm, a prompt,
 * an alert in the load handler): the load waits on the dialog, so `open`, `open --new` and
 * `reload` must answer as the dialog opens, naming it, instead of at their deadline;
 * the dialog's id must answer it.
 */
import { codeOf, makeLab, replyProblem, type Lab } from "../lib/lab.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
import { startSite } from "../lib/site.ts";

const KEY = "loading-agent";
/** Long, so a navigation that waits for its deadline is plain to see. */
const TIMEOUT_MS = 20_000;
const ANSWER_WITHIN_MS = 8_000;

const PAGES: { what: string; html: string; type: string }[] = [
  {
    what: "alert in an inline script",
    html: "<title>A</title><script>alert('loading')</script><p>after",
    type: "alert",
  },
  {
    what: "confirm in an inline script",
    html: "<title>C</title><script>confirm('sure?')</script><p>after",
    type: "confirm",
  },
  {
    what: "prompt in an inline script",
    html: "<title>P</title><script>prompt('name?')</script><p>after",
    type: "prompt",
  },
  {
    what: "alert in the load handler",
    html: "<title>L</title><body onload=\"alert('loaded')\"><p>after",
    type: "alert",
  },
];

type Nav = "open --new" | "open" | "reload";

async function bp(lab: Lab, args: string[]) {
  return await lab.bp(["--timeout", String(TIMEOUT_MS), ...args], { key: KEY, killAfterMs: TIMEOUT_MS + 20_000 });
}

export const loadingPart: Part = {
  name: "loading",
  title: "Dialogs while a page loads",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const reps = ctx.reps ?? (ctx.scale === "short" ? 1 : 5);
    const navs: Nav[] =
      ctx.scale === "short" && ctx.reps === undefined ? ["open --new", "reload"] : ["open --new", "open", "reload"];
    const pages = ctx.scale === "short" && ctx.reps === undefined ? PAGES.slice(0, 2) : PAGES;
    const site = startSite();
    const lab = makeLab();
    const rows = {
      answer: new Tally(
        `${navs.join(", ")} of a page that opens a dialog while loading (${pages.map((p) => p.what).join("; ")}), --timeout ${TIMEOUT_MS}`,
        `ok with the dialog's id and type within ${ANSWER_WITHIN_MS / 1000} s`,
      ),
      answered: new Tally("answering that dialog by the id given", "ok; the page then finishes loading"),
    };
    let slowest = 0;
    try {
      const launch = await lab.bp(["launch", "--headless", "--executable", lab.chromium], {
        key: KEY,
        killAfterMs: 60_000,
      });
      if (launch.json?.ok !== true) throw new Error(`launch: ${launch.stdout || launch.stderr}`);
      for (let rep = 0; rep < reps; rep++) {
        for (const page of pages) {
          const url = `${site.a}/echo?html=${encodeURIComponent(`<!doctype html>${page.html}`)}`;
          for (const nav of navs) {
            const label = `${nav} (${page.what})`;
            await rows.answer.attempt(async () => {
              // The state each navigation starts from: reload on the page itself, open from another page.
              if (nav === "reload" || nav === "open") {
                await settle(lab, await bp(lab, nav === "reload" ? ["open", url] : ["open", `${site.a}/`]));
              }
              const args = nav === "open --new" ? ["open", url, "--new"] : nav === "open" ? ["open", url] : [nav];
              const r = await bp(lab, args);
              slowest = Math.max(slowest, r.ms);
              const bad = replyProblem(r);
              if (bad) return `${label}: ${bad}`;
              const dialog = r.json?.dialog as { id?: string; type?: string } | undefined;
              const problem =
                r.json?.ok !== true || dialog?.type !== page.type
                  ? `${label}: answered ${codeOf(r)} without the ${page.type} (${r.stdout.slice(0, 200)})`
                  : r.ms > ANSWER_WITHIN_MS
                    ? `${label}: answered after ${Math.round(r.ms)} ms`
                    : undefined;
              await rows.answered.attempt(async () => {
                const id = dialog?.id ?? (await pendingDialog(lab));
                if (!id) return `${label}: no dialog to answer`;
                const a = await bp(lab, ["dialog", id, "--dismiss"]);
                if (a.json?.ok !== true) return `${label}: dialog ${id} --dismiss: ${a.stdout.slice(0, 200)}`;
                const left = await pendingDialog(lab);
                return left ? `${label}: dialog ${left} still open after answering ${id}` : undefined;
              });
              return problem;
            });
          }
        }
        ctx.log(`loading: round ${rep + 1}/${reps}`);
      }
    } finally {
      await lab.cleanup();
      site.stop();
    }
    return {
      part: "loading",
      title: loadingPart.title,
      rows: Object.values(rows).map((t) => t.row),
      wallSeconds: (performance.now() - started) / 1000,
      figures: { "slowest answer (ms)": Math.round(slowest) },
    };
  },
};

async function pendingDialog(lab: Lab): Promise<string | undefined> {
  const r = await bp(lab, ["dialogs"]);
  return ((r.json?.dialogs as { id: string }[] | undefined) ?? [])[0]?.id;
}

/** A set-up navigation may itself stop on the page's dialog: answer it so the next one starts clean. */
async function settle(lab: Lab, r: Awaited<ReturnType<typeof bp>>): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const id = (r.json?.dialog as { id?: string } | undefined)?.id ?? (await pendingDialog(lab));
    if (!id) return;
    await bp(lab, ["dialog", id, "--dismiss"]);
  }
}
