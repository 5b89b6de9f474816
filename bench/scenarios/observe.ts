/**
 * Snapshots of small and very large pages, and one agent step "act and see the result".
 */
import { BIG_CONTROLS, BIG_NODES, CLICK_TARGET, TABLE_CONTROLS, TYPE_TARGET } from "../lib/fixtures.ts";
import { runPlan, type Ctx } from "../lib/measure.ts";
import { BP_FULL_LIMIT } from "../tools/bp.ts";
import { errorText, sequence, type Sample, type Tool } from "../tools/types.ts";

async function goto(tool: Tool, url: string): Promise<void> {
  const e = await tool.run(tool.cmd.navigate(url));
  if (!tool.ok(e)) throw new Error(`navigate: ${errorText(e)}`);
}

/** One snapshot, with a note when bp says it cut the output short. */
async function snap(tool: Tool, args: string[]): Promise<Sample> {
  const e = await tool.run(args);
  if (!tool.ok(e)) return { ms: e.ms, chars: e.out.length, ok: false, error: errorText(e) };
  // bp marks cut output, and folds long runs of same-shaped siblings into one addressable entry.
  const notes =
    tool.id !== "bp"
      ? []
      : [/"truncated":true/.test(e.out) ? "truncated" : "", /"fold":\d/.test(e.out) ? "folded" : ""];
  const note = notes.filter(Boolean).join(", ");
  return { ms: e.ms, chars: e.out.length, ok: true, note: note || undefined };
}

const fmt = (n: number) => n.toLocaleString("en-US");

export async function snapshots(ctx: Ctx): Promise<void> {
  ctx.results.describe(
    "Snapshot",
    `bp \`snapshot\` (default limit) and \`snapshot --limit ${BP_FULL_LIMIT}\` (covers every control), ` +
      "agent-browser `snapshot -i` (interactive), playwright-cli `snapshot` (its only form). Pages: a small sign-up " +
      `form; an orders table with ${fmt(TABLE_CONTROLS)} controls; a feed of ${fmt(BIG_NODES)} elements with ` +
      `${fmt(BIG_CONTROLS)} links and buttons. A peer's figure appears in both bp rows of a page. bp folds long ` +
      "runs of same-shaped siblings into one entry whose refs stay addressable (`--expand`); such cells say folded.",
  );
  const pages = [
    { path: "/form", title: "small form", warmup: 2, runs: 10, both: false },
    { path: "/table", title: `table, ${fmt(TABLE_CONTROLS)} controls`, warmup: 1, runs: 5, both: true },
    { path: "/big", title: `${fmt(BIG_NODES)} elements`, warmup: 1, runs: 3, both: true },
  ];
  for (const page of pages) {
    const keys = page.both ? (["default", "all"] as const) : (["default"] as const);
    const label = (k: string) => (k === "default" ? "bp default" : `bp --limit ${BP_FULL_LIMIT}`);
    await runPlan(ctx, {
      section: `Snapshot: ${page.title}`,
      warmup: page.warmup,
      runs: page.runs,
      needs: "snapshot",
      setup: (t) => goto(t, ctx.fx.url(page.path)),
      variants: (t) =>
        t.cmd.snapshots
          .filter((v) => t.id !== "bp" || (keys as readonly string[]).includes(v.key))
          .map((v) => ({ key: v.key, fn: () => snap(t, v.args) })),
      rows: keys.flatMap((k) => [
        { key: k, label: `time${page.both ? ` (${label(k)})` : ""}, ms`, metric: "ms" as const },
        { key: k, label: `output${page.both ? ` (${label(k)})` : ""}, chars`, metric: "chars" as const },
      ]),
    });
  }
}

/** Finds the ref of a named element from a fresh snapshot (untimed). */
async function refOf(tool: Tool, name: string): Promise<string> {
  const args = tool.cmd.snapshots.find((v) => v.key === "all")?.args ?? tool.cmd.snapshots[0]?.args ?? ["snapshot"];
  const e = await tool.run(args);
  if (!tool.ok(e)) throw new Error(`snapshot: ${errorText(e)}`);
  const ref = tool.findRef(e.out, name);
  if (!ref) throw new Error(`no ref for "${name}" in the snapshot`);
  return ref;
}

async function actAndSee(ctx: Ctx, kind: "click" | "type"): Promise<void> {
  const refs = new Map<string, string>();
  const text = "Ada Lovelace";
  await runPlan(ctx, {
    section: "Act and see the result (one agent step)",
    warmup: 2,
    runs: 10,
    needs: kind,
    setup: async (t) => {
      if (t.id === "bp" && t.missing.has("snapshot")) throw new Error("needs bp snapshot for refs");
      await goto(t, ctx.fx.url("/form"));
      refs.set(t.id, await refOf(t, kind === "click" ? CLICK_TARGET : TYPE_TARGET));
    },
    variants: (t) => {
      const ref = refs.get(t.id) ?? "";
      const act = kind === "click" ? t.cmd.click(ref) : t.cmd.type(ref, text);
      return [
        { key: "main", fn: () => sequence(t, t.cmd.observeAfterAction ? [act, t.cmd.observeAfterAction] : [act]) },
      ];
    },
    rows: [
      { key: "main", label: `${kind === "click" ? "click a button" : "fill a text field"}, ms`, metric: "ms" },
      { key: "main", label: `${kind === "click" ? "click" : "fill"}: characters to read, chars`, metric: "chars" },
    ],
  });
  if (kind === "click") {
    // Sanity check that the clicks landed: the page counts them.
    for (const t of ctx.tools) {
      if (t.skipped || t.missing.has("click") || !refs.has(t.id)) continue;
      const e = await t.run(t.cmd.eval("document.getElementById('count').textContent"));
      ctx.log(`  ${t.id}: counter after clicks ${e.out.trim().replace(/\s+/g, " ").slice(0, 80)}`);
    }
  }
}

export async function actions(ctx: Ctx): Promise<void> {
  ctx.results.describe(
    "Act and see the result",
    `on the form page, the button "${CLICK_TARGET}" (bumps a counter) and the text field "${TYPE_TARGET}" ` +
      "(echoed into the page). bp `click <ref>` and `type <ref> <text>` answer with evidence and the fresh " +
      "observation in one reply; agent-browser `click @ref` / `fill @ref <text>` followed by `snapshot -i`; " +
      "playwright-cli `click <ref>` / `fill <ref> <text>` followed by `snapshot` (its action reply links the " +
      "snapshot as a file). Time and characters are summed over the commands of the step.",
  );
  await actAndSee(ctx, "click");
  await actAndSee(ctx, "type");
}
