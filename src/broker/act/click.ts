import { BpError } from "../../shared/errors.ts";
import { observeLocked } from "../observe/snapshot.ts";
import { selectedTab } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { resolveRef } from "../observe/resolve-ref.ts";
import { clickStatus, pageEffects, stateEffects } from "./evidence.ts";
import { actOnRef, dispatchClick, probeForPointer, type ElementState } from "./pointer.ts";
import { finishAction } from "./result.ts";
import { ActionWatch } from "./watch.ts";

export interface ClickArgs {
  ref?: number;
  xy?: string;
  double: boolean;
  right: boolean;
  limit: number;
  full: boolean;
}

export async function click(ctx: CallContext, args: ClickArgs): Promise<Record<string, unknown>> {
  const sel = selectedTab(ctx);
  const { browser, rec } = sel;
  return ctx.broker.exclusive(rec.targetId, async () => {
    const session = await browser.session(rec);
    let x: number;
    let y: number;
    let before: ElementState | undefined;
    let target: Record<string, unknown> | undefined;
    let hidden: boolean | undefined;
    const resolved = args.ref !== undefined ? await resolveRef(sel, args.ref) : undefined;
    if (resolved) {
      const probe = await probeForPointer(resolved);
      ({ x, y } = probe);
      before = probe.state;
      target = probe.target;
      hidden = probe.hidden;
    } else {
      [x, y] = parseXy(args.xy ?? "");
    }
    const watch = await ActionWatch.start(browser, rec, session);
    try {
      await watch.armQuiet();
      const dispatched = dispatchClick(session, x, y, args.right ? "right" : "left", args.double ? 2 : 1, hidden);
      dispatched.catch(() => undefined);
      await Promise.race([dispatched, watch.dialogOpened]);
      await watch.settle(ctx.deadline);
    } finally {
      await watch.stop();
    }
    let after: ElementState | undefined;
    if (resolved && !watch.effects.navigation && !watch.effects.dialog) {
      after = await actOnRef<ElementState>(resolved, { op: "state" }).catch(() => undefined);
    }
    const effects = [...stateEffects(before, after), ...pageEffects(watch.effects)];
    const verdict = resolved ? clickStatus(before?.kind, effects) : { status: effects.length > 0 ? ("verified" as const) : ("unavailable" as const), reason: "coordinate_target" };
    const evidence: Record<string, unknown> = {
      action: "click",
      ...verdict,
      kind: resolved ? (before?.kind ?? "other") : "coordinates",
      effects,
      ...(target ? { target } : {}),
      point: { x: Math.round(x), y: Math.round(y) },
      ...(after?.checked !== undefined ? { checked: after.checked } : {}),
      ...(after?.focused !== undefined ? { focused: after.focused } : {}),
    };
    return finishAction(ctx, sel, evidence, watch.effects, { limit: args.limit, full: args.full }, observeLocked);
  });
}

function parseXy(text: string): [number, number] {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m) throw new BpError("invalid_argument", "--xy takes 'x,y' in viewport CSS px.", { context: { field: "xy" } });
  return [Number(m[1]), Number(m[2])];
}
