import { BpError } from "../../shared/errors.ts";
import { observeLocked } from "../observe/snapshot.ts";
import { selectedTab } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { resolveRef } from "../observe/resolve-ref.ts";
import { clickStatus, pageEffects, stateEffects } from "./evidence.ts";
import { actOnRef, dispatchClick, probeForPointer, type ElementState } from "./pointer.ts";
import { finishAction } from "./result.ts";
import { ActionWatch } from "./watch.ts";
import { runInWorld } from "../world.ts";

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
      // Say what is under the point, so a coordinate click is not a blind one.
      const mainFrame = (await session.send("Page.getFrameTree")).frameTree.frame.id;
      const hit = await runInWorld<{ tagName: string; id?: string; role?: string; name?: string; ref?: number } | null>(session, mainFrame, HIT_SOURCE, { x, y }).catch(() => null);
      if (hit) {
        const { ref, ...rest } = hit;
        const obs = sel.agent.observations.get(rec.targetId);
        target = { ...rest, ...(ref !== undefined && obs?.refs.get(ref)?.frameId === mainFrame ? { ref } : {}) };
      }
    }
    const watch = await ActionWatch.start(browser, rec, session);
    try {
      await watch.armQuiet(resolved?.binding);
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

/**
 * The element at a viewport point, through open shadow roots and same-origin frames: tag, id,
 * role, a short name, and its snapshot ref if it (or an ancestor) has one. A cross-origin frame
 * is named as the iframe.
 */
const HIT_SOURCE = `function (win, p) {
  var doc = win.document, x = p.x, y = p.y, el = doc.elementFromPoint(x, y);
  for (var i = 0; el && i < 32; i++) {
    if (el.shadowRoot) { var inner = el.shadowRoot.elementFromPoint(x, y); if (inner && inner !== el) { el = inner; continue; } }
    if ((el.localName === "iframe" || el.localName === "frame") && el.contentDocument) {
      var r = el.getBoundingClientRect(); x -= r.left + el.clientLeft; y -= r.top + el.clientTop;
      var next = el.contentDocument.elementFromPoint(x, y); if (!next) break; el = next; continue;
    }
    break;
  }
  if (!el) return null;
  var name = (el.getAttribute("aria-label") || el.getAttribute("title") || el.getAttribute("alt") || el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 80);
  var out = { tagName: el.localName };
  if (el.id) out.id = String(el.id).slice(0, 80);
  var role = el.getAttribute("role"); if (role) out.role = role.slice(0, 40);
  if (name) out.name = name;
  var reg = win[Symbol.for("browser-pilot.ref-registry.v1")];
  if (reg && reg.doc === win.document) for (var n = el, k = 0; n && k < 8; k++) { var ref = reg.byEl.get(n); if (ref !== undefined) { out.ref = ref; break; } n = n.parentNode && n.parentNode.nodeType === 11 ? n.parentNode.host : n.parentNode; }
  return out;
}`;

function parseXy(text: string): [number, number] {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m) throw new BpError("invalid_argument", "--xy takes 'x,y' in viewport CSS px.", { context: { field: "xy" } });
  return [Number(m[1]), Number(m[2])];
}
