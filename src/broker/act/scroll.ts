import { scroll as command } from "../../protocol/commands-actions.ts";
import type { ScrollEvidence } from "../../protocol/evidence.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import { exactly } from "../context/handler.ts";
import { rootForFrame } from "../observe/frame-list.ts";
import { staleRef } from "../observe/resolve-ref.ts";
import type { EvidenceStatus } from "./evidence.ts";
import { pageEffects } from "./evidence.ts";
import { callFn, callSteps, step, type PageResult } from "../page-fns.ts";
import type { CdpSession } from "../../cdp/session.ts";
import type { Selected } from "../context/tabs.ts";
import type { FrameWorld } from "../frame-world.ts";
import { defineAction } from "./pipeline.ts";

export interface ScrollArgs {
  direction?: "up" | "down" | "left" | "right";
  amount?: number;
  unit: "viewport" | "pixels";
  ref?: number;
  selector?: string;
  to?: "start" | "end";
  toText?: string;
  exact: boolean;
  limit: number;
  full: boolean;
}

type ScrollOutcome = PageResult<"scroll">;

/** Which of its exclusive modes a scroll is in (the command's rules allow exactly one). */
function modeOf(a: ScrollArgs): "relative" | "position" | "text" {
  return a.toText !== undefined ? "text" : a.to !== undefined ? "position" : "relative";
}

/**
 * `bp scroll`: by an amount, to an end, or until a text is in view, in the page, an element or the pane that scrolls;
 * not moving at a boundary or not finding the text is a mismatch.
 */
export const scrollHandler = defineAction<typeof command, ScrollArgs, ScrollOutcome | undefined>(command, {
  args: ({ "to-text": toText, ...rest }) => ({ ...rest, ...(toText !== undefined ? { toText } : {}) }),
  observe: (a) => ({ limit: a.limit, full: a.full }),
  locate: (a) => (a.ref !== undefined ? { ref: a.ref, steps: [] } : undefined),
  // Without a ref the dispatch arms the watcher in its own first page call.
  armQuiet: (a) => a.ref !== undefined,
  async dispatch({ sel, args, top, target, watch }) {
    const mode = modeOf(args);
    const page = {
      mode,
      ...(args.direction
        ? { direction: args.direction, amount: args.amount ?? (args.unit === "pixels" ? 300 : 1), unit: args.unit }
        : {}),
      ...(args.to ? { to: args.to } : {}),
      ...(args.toText !== undefined ? { text: args.toText, exact: args.exact } : {}),
      ...(args.selector !== undefined ? { selector: args.selector } : {}),
    };
    // Without a ref the page scrolls, or the frame the agent chose: in the top document the
    // quiet watcher is installed in the same call, just before the scroll.
    const inTop = async (frame: FrameWorld) => {
      if (watch.armed || frame.session !== top || frame.frameId !== watch.mainFrameId) {
        if (!watch.armed) await watch.armQuiet();
        return callFn(frame, "scroll", page);
      }
      const r = await callSteps(top, frame.frameId, [watch.quietStep(), step("scroll", page)]);
      const out = r.results[1];
      if (!out) throw new BpError("internal_error", "The scroll step did not run.");
      return out;
    };
    const run = target ? callFn(target.binding, "scroll", page, { ref: target.ref }) : scrollRoot(sel, top).then(inTop);
    run.catch(() => undefined);
    const out = await Promise.race([run, watch.dialogOpened.then(() => undefined)]);
    if (out && !out.ok) {
      if (out.reason === "detached" && args.ref !== undefined) throw staleRef(args.ref, "node_detached");
      if (out.reason === "selector_invalid")
        throw invalidArgument("selector", `"${args.selector}" is not a valid CSS selector.`, {
          selector: args.selector,
        });
      throw invalidArgument("selector", `Selector "${args.selector}" did not match.`, { selector: args.selector });
    }
    return out;
  },
  evidence({ args, watch }, out) {
    const mode = modeOf(args);
    return exactly<ScrollEvidence>()({
      action: "scroll",
      ...verdict(mode, out),
      mode,
      ...(out ? strip(out) : {}),
      effects: pageEffects(watch.effects),
    });
  },
});

/** The document a scroll without a ref moves: the page, or the frame the agent chose ('bp frame'). */
async function scrollRoot(sel: Selected, top: CdpSession): Promise<FrameWorld> {
  const obs = sel.agent.observations.get(sel.rec.targetId);
  const chosen = sel.agent.frames.get(sel.rec.targetId);
  // Without a chosen frame the page itself scrolls: no need to ask the browser for its frames.
  const root =
    chosen === undefined
      ? undefined
      : await rootForFrame(sel.rec, top, sel.rec.targetId, obs?.mainLoaderId ?? "", chosen);
  return root
    ? { session: root.session, frameId: root.frameId, offset: root.offset }
    : { session: top, frameId: sel.rec.targetId, offset: { x: 0, y: 0 } };
}

function verdict(
  mode: "relative" | "position" | "text",
  o: ScrollOutcome | undefined,
): { status: EvidenceStatus; reason?: string } {
  if (!o) return { status: "unavailable", reason: "dialog_opened" };
  if (mode === "text") return o.reason ? { status: "mismatch", reason: o.reason } : { status: "verified" };
  if (!o.moved)
    return mode === "relative"
      ? { status: "mismatch", reason: "at_boundary" }
      : { status: "verified", reason: "at_boundary" };
  return { status: "verified" };
}

function strip(o: ScrollOutcome): Omit<ScrollOutcome, "ok" | "reason"> {
  const { ok: _ok, reason: _reason, ...rest } = o;
  return rest;
}
