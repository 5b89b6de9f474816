/**
 * Act and see on real-widget pages (bench/lib/widgets.ts): jQuery UI's autocomplete, datepicker
 * and sortable, a React page (a button, a controlled field), a native select and jQuery UI's hover menu (/choices),
 * and a page with a ticking timer and endless animations. Measured as the form
 * page's step is (bp's action reply against a peer's action plus its snapshot), and also until
 * the effect shows: a peer whose first look came before the widget drew (the autocomplete's
 * debounce, the datepicker's fade) looks again, as an agent would have to.
 */
import { CLICK_TARGET, TYPE_TARGET } from "../lib/fixtures.ts";
import { cell, runPlan, type Ctx } from "../lib/measure.ts";
import { WIDGET, WIDGET_RESET } from "../lib/widgets.ts";
import { errorText, type Sample, type Tool } from "../tools/types.ts";

/** An element to act on: by its accessible name, or by a CSS selector where a peer's snapshot gives it no ref. */
export interface Target {
  name: string;
  selector?: string;
}

export interface ActStep {
  id: string;
  page: string;
  label: string;
  kind: "click" | "type" | "drag" | "hover" | "select";
  target: Target;
  /** drag: where to drop; hover: where the pointer rests before each repetition (untimed), away from the target. */
  to?: Target;
  /** type: the text; select: the option's label. */
  text?: string;
  /** Untimed, before every repetition: puts the widget back (same elements, so refs stay valid). */
  reset?: string;
  /**
   * Text the output shows once the action's effect is drawn (checked in bp's reply and a peer's look); a pattern where
   * the text alone shows early (a menu's name spells its hidden submenu's items in a peer's snapshot).
   */
  effect?: string | RegExp;
}

export const FORM_STEPS: ActStep[] = [
  {
    id: "form-click",
    page: "/form",
    label: "form: click a button",
    kind: "click",
    target: { name: CLICK_TARGET },
  },
  {
    id: "form-type",
    page: "/form",
    label: "form: fill a text field",
    kind: "type",
    target: { name: TYPE_TARGET },
    text: "Ada Lovelace",
  },
];

export const WIDGET_STEPS: ActStep[] = [
  {
    id: "autocomplete",
    page: "/widgets",
    label: `autocomplete: type “${WIDGET.cityText}”, see the suggestions`,
    kind: "type",
    target: { name: WIDGET.city },
    text: WIDGET.cityText,
    reset: WIDGET_RESET.city,
    effect: WIDGET.suggestion,
  },
  {
    id: "datepicker",
    page: "/widgets",
    label: "datepicker: click the field, see the calendar",
    kind: "click",
    target: { name: WIDGET.date },
    reset: WIDGET_RESET.date,
    effect: WIDGET.calendar,
  },
  {
    id: "sortable",
    page: "/widgets",
    label: "sortable: drag the first item onto the last",
    kind: "drag",
    target: { name: WIDGET.sortFirst, selector: "#list li:nth-child(1)" },
    to: { name: WIDGET.sortLast, selector: "#list li:nth-child(3)" },
    reset: WIDGET_RESET.sort,
  },
  {
    id: "react-click",
    page: "/react",
    label: "React: click a button",
    kind: "click",
    target: { name: WIDGET.reactButton },
  },
  {
    id: "react-load",
    page: "/react",
    label: "React: click a button that loads from the server",
    kind: "click",
    target: { name: WIDGET.reactLoad },
    reset: WIDGET_RESET.stock,
    effect: WIDGET.reactLoaded,
  },
  {
    id: "react-type",
    page: "/react",
    label: "React: fill a controlled field",
    kind: "type",
    target: { name: WIDGET.reactField },
    text: "Ada Lovelace",
    reset: WIDGET_RESET.react,
    effect: "Ada Lovelace",
  },
  {
    id: "select",
    page: "/choices",
    label: `native select: choose “${WIDGET.speedOption}”`,
    kind: "select",
    target: { name: WIDGET.speed },
    text: WIDGET.speedOption,
    reset: WIDGET_RESET.speed,
    // The select showing the option: bp `[n,"combobox","Speed",{"v":"Fast"}]`, agent-browser `combobox "Speed" […]: Fast`
    // (its `snapshot -i` lists no paragraph, so the page's own "Speed: Fast" is not what both can show).
    effect: new RegExp(`combobox\\W{1,4}${WIDGET.speed}\\W.{0,40}\\b${WIDGET.speedOption}\\b`),
  },
  {
    id: "hover-menu",
    page: "/choices",
    label: `menu: hover “${WIDGET.menuParent}”, see its submenu`,
    kind: "hover",
    target: { name: WIDGET.menuParent },
    to: { name: WIDGET.menuLeaf },
    reset: WIDGET_RESET.menu,
    // The item listed as one: bp `[n,"menuitem","Fiction"]`, agent-browser `menuitem "Fiction"`.
    effect: new RegExp(`menuitem\\W{1,4}${WIDGET.menuChild}\\b`),
  },
  {
    id: "live-click",
    page: "/live",
    label: "timer and animations: click a button",
    kind: "click",
    target: { name: WIDGET.liveButton },
  },
  {
    id: "live-type",
    page: "/live",
    label: "timer and animations: fill a text field",
    kind: "type",
    target: { name: WIDGET.liveField },
    text: "Ada Lovelace",
    reset: WIDGET_RESET.live,
    effect: "Ada Lovelace",
  },
];

async function navigate(tool: Tool, url: string): Promise<void> {
  const e = await tool.run(tool.cmd.navigate(url));
  if (!tool.ok(e)) throw new Error(`navigate: ${errorText(e)}`);
}

/** The refs (or selectors) of a step's targets, from one full snapshot (untimed). */
export async function resolveTargets(tool: Tool, step: ActStep): Promise<string[]> {
  const args = tool.cmd.snapshots.find((v) => v.key === "all")?.args ?? tool.cmd.snapshots[0]?.args ?? ["snapshot"];
  const e = await tool.run(args);
  if (!tool.ok(e)) throw new Error(`snapshot: ${errorText(e)}`);
  return [step.target, ...(step.to ? [step.to] : [])].map((t) => {
    const ref = tool.findRef(e.out, t.name);
    if (ref) return ref;
    if (tool.selectors && t.selector) return t.selector;
    throw new Error(`no ref for "${t.name}" in the snapshot`);
  });
}

export function actArgs(tool: Tool, step: ActStep, refs: string[]): string[] {
  const [a = "", b = ""] = refs;
  if (step.kind === "click") return tool.cmd.click(a);
  if (step.kind === "type") return tool.cmd.type(a, step.text ?? "");
  if (step.kind === "hover") return tool.cmd.hover(a);
  if (step.kind === "select") return tool.cmd.select(a, step.text ?? "");
  return tool.cmd.drag(a, b);
}

/** Puts the widget back before a repetition (untimed); a hover's pointer first rests on its `to` (refs: resolveTargets). */
export async function resetStep(tool: Tool, step: ActStep, refs?: string[]): Promise<void> {
  const away = step.kind === "hover" ? refs?.[1] : undefined;
  if (away) {
    const e = await tool.run(tool.cmd.hover(away));
    if (!tool.ok(e)) throw new Error(`hover away: ${errorText(e)}`);
  }
  if (!step.reset) return;
  const e = await tool.run(tool.cmd.eval(step.reset));
  if (!tool.ok(e)) throw new Error(`reset: ${errorText(e)}`);
  // The agent saw the page as it is now: bp's reply diffs against its last observation, which
  // must not be the one from before the reset (the typed name would then be no change).
  const look = await tool.run(tool.cmd.snapshots[0]?.args ?? ["snapshot"]);
  if (!tool.ok(look)) throw new Error(`look after reset: ${errorText(look)}`);
}

/** How long (tool time) the looks may take to show the effect before the run counts as failed (an agent would give up too). */
const LOOK_BUDGET_MS = 3_000;

/**
 * The action, then (peers) their snapshot; with `untilSeen`, more looks (a peer's snapshot, bp's
 * `snapshot`) until the output shows the effect. `seen`: the effect was in the output.
 */
async function step(tool: Tool, s: ActStep, refs: string[], untilSeen: boolean): Promise<Sample & { seen?: boolean }> {
  await resetStep(tool, s, refs);
  let ms = 0;
  let chars = 0;
  let seen = false;
  const look = tool.cmd.observeAfterAction ?? tool.cmd.snapshots[0]?.args ?? ["snapshot"];
  const commands = [actArgs(tool, s, refs), ...(tool.cmd.observeAfterAction ? [tool.cmd.observeAfterAction] : [])];
  // Bounded by time, not a count of looks: a count ran out before a 300 ms debounce ended for a fast peer, which then
  // got a time for an effect it never saw.
  for (let i = 0; ; i++) {
    if (i >= commands.length && (!untilSeen || seen || s.effect === undefined)) break;
    if (i >= commands.length && ms >= LOOK_BUDGET_MS)
      return { ms, chars, ok: false, error: `the effect (${s.effect}) not shown within ${LOOK_BUDGET_MS} ms of looks` };
    const args = commands[i] ?? look;
    const e = await tool.run(args);
    ms += e.ms;
    chars += e.out.length;
    if (!tool.ok(e)) return { ms, chars, ok: false, error: `${args[0]}: ${errorText(e)}` };
    seen ||= s.effect !== undefined && (typeof s.effect === "string" ? e.out.includes(s.effect) : s.effect.test(e.out));
  }
  return { ms, chars, ok: true, seen };
}

export async function widgetActions(ctx: Ctx): Promise<void> {
  ctx.results.describe(
    "Act and see on widget pages",
    "real jQuery UI 1.14 widgets (the devDependencies, served locally) with the library's defaults: the autocomplete " +
      `field “${WIDGET.city}” (typing “${WIDGET.cityText}” shows suggestions after its 300 ms delay), the datepicker ` +
      `field “${WIDGET.date}” (a click opens the calendar with its fadeIn), a sortable list (drag “${WIDGET.sortFirst}” ` +
      `onto “${WIDGET.sortLast}”); a React 19 page (the button “${WIDGET.reactButton}”, which says the cart's count, ` +
      `the button “${WIDGET.reactLoad}”, which asks a local API and renders its answer, and ` +
      `a controlled field “${WIDGET.reactField}”, which greets the name typed); a native select “${WIDGET.speed}” whose change ` +
      `handler says the choice, and jQuery UI's menu, whose item “${WIDGET.menuParent}” opens its submenu 300 ms after the ` +
      `pointer came over it (the pointer rests on “${WIDGET.menuLeaf}” before each repetition, untimed); and a page with an episode timer ticking every 100 ms, an endless CSS spinner, a JS ` +
      "animation moving a box every frame and a button whose click flashes a 150 ms CSS animation, as MiniWoB++ episodes " +
      "run. Each repetition first puts the widget back with an untimed eval and takes an untimed snapshot (the page as the agent saw it before acting; bp's reply diffs against it). Commands as on the form page (drag: bp " +
      "`drag <ref> <ref>`, agent-browser `drag` with CSS selectors, as its `snapshot -i` gives list items no ref, " +
      "playwright-cli `drag <ref> <ref>`). “act + one look” is the action and, for a peer, one snapshot; “until the effect " +
      `shows” repeats the peer's snapshot until its output shows the effect (a suggestion, the calendar's Next, the stock, the typed name, the submenu's “${WIDGET.menuChild}”; at most ` +
      `${LOOK_BUDGET_MS / 1000} s of tool time in all, the action's included, else the run fails), as an agent that needs it would; “effect shown” counts the runs whose ` +
      "act + one look showed it.",
  );
  for (const s of WIDGET_STEPS) {
    const refs = new Map<string, string[]>();
    const seen = new Map<string, { shown: number; of: number }>();
    const section = `Act and see on widget pages: ${s.label}`;
    const variants = s.effect ? (["main", "seen"] as const) : (["main"] as const);
    await runPlan(ctx, {
      section,
      warmup: 2,
      runs: 10,
      needs: s.kind === "click" || s.kind === "type" ? s.kind : undefined,
      setup: async (t) => {
        await navigate(t, ctx.fx.url(s.page));
        await resetStep(t, s);
        refs.set(t.id, await resolveTargets(t, s));
      },
      variants: (t) =>
        variants.map((key) => ({
          key,
          fn: async () => {
            const r = await step(t, s, refs.get(t.id) ?? [], key === "seen");
            const n = seen.get(t.id) ?? { shown: 0, of: 0 };
            if (key === "main")
              seen.set(t.id, {
                shown: n.shown + (r.seen ? 1 : 0),
                of: n.of + 1,
              });
            return r;
          },
        })),
      rows: [
        { key: "main", label: "act + one look, ms", metric: "ms" },
        { key: "main", label: "act + one look, chars", metric: "chars" },
        ...(s.effect
          ? [
              {
                key: "seen",
                label: "until the effect shows, ms",
                metric: "ms" as const,
              },
            ]
          : []),
      ],
    });
    if (s.effect) {
      const row = ctx.results.row(section, "effect shown by act + one look, runs", "count");
      for (const [id, n] of seen) {
        const c = cell(row, id);
        c.values.push(n.shown);
        c.notes.add(`of ${n.of}`);
      }
    }
  }
}
