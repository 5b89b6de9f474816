import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";
import { BpError } from "../../shared/errors.ts";
import { observeLocked } from "../observe/snapshot.ts";
import { selectedTab } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { resolveRef, type ResolvedRef } from "../observe/resolve-ref.ts";
import { evidenceStatus, pageEffects, stateEffects } from "./evidence.ts";
import { callOnRef, frameOfRef, callInFrame } from "./frame-call.ts";
import { moveMouse, actOnRef, probeForPointer, type ElementState, type Probe } from "./pointer.ts";
import { finishAction } from "./result.ts";
import { ActionWatch } from "./watch.ts";

const HOVERED = `(function (win, el) { try { return !!el && el.matches(":hover"); } catch (e) { return false; } })`;

/** `bp hover <ref>`: moves the pointer onto the element after the same probe a click gets. */
export async function hover(ctx: CallContext, args: { ref: number; limit: number; full: boolean }): Promise<Record<string, unknown>> {
  const sel = selectedTab(ctx);
  return ctx.broker.exclusive(sel.rec.targetId, async () => {
    const top = await sel.browser.session(sel.rec);
    const resolved = await resolveRef(sel, args.ref);
    const probe = await probeForPointer(resolved, { requireEnabled: false });
    const watch = await ActionWatch.start(sel.browser, sel.rec, top);
    let after: ElementState | undefined;
    let hovered = false;
    try {
      await watch.armQuiet(resolved.binding);
      await Promise.race([moveMouse(top, probe.x, probe.y, probe.hidden), watch.dialogOpened]);
      await watch.settle(ctx.deadline);
      if (!watch.effects.dialog && !watch.effects.navigation) {
        after = await actOnRef<ElementState>(resolved, { op: "state" }).catch(() => undefined);
        hovered = await callOnRef<boolean>(resolved, HOVERED, {}).catch(() => false);
      }
    } finally {
      await watch.stop();
    }
    const effects = [...stateEffects(probe.state, after), ...pageEffects(watch.effects)];
    const verdict = hovered ? { status: "verified" as const } : evidenceStatus(effects);
    const evidence = { action: "hover", ...verdict, hovered, effects, target: probe.target, point: { x: Math.round(probe.x), y: Math.round(probe.y) } };
    return finishAction(ctx, sel, evidence, watch.effects, { limit: args.limit, full: args.full }, observeLocked);
  });
}

/** Probes both ends so that both are on screen at once: the source centred, else the target centred. */
async function probeBoth(from: ResolvedRef, to: ResolvedRef): Promise<[Probe, Probe]> {
  const a = await probeForPointer(from);
  try {
    return [a, await probeForPointer(to, { requireEnabled: false, noScroll: true })];
  } catch (err) {
    if (!(err instanceof BpError) || err.context?.reason !== "outside_viewport") throw err;
  }
  const b = await probeForPointer(to, { requireEnabled: false });
  try {
    return [await probeForPointer(from, { noScroll: true }), b];
  } catch (err) {
    if (!(err instanceof BpError) || err.context?.reason !== "outside_viewport") throw err;
    throw new BpError("action_not_verified", `Refs ${from.ref} and ${to.ref} do not fit in the viewport together; nothing was sent.`, {
      retryable: true,
      context: { ref: from.ref, reason: "too_far_apart", dispatched: false },
      hint: "Scroll so both are visible, or drag in shorter hops.",
    });
  }
}

const DRAG_STEPS = 8;
const DRAG_FLAG = "browser-pilot.drag.v1";
/** Records, in our world, whether the page started (and did not cancel) an HTML5 drag. */
const DRAG_LISTEN = `(function (win, el, arg) {
  var K = Symbol.for(${JSON.stringify(DRAG_FLAG)});
  if (arg.op === "arm") { var st = { started: false }; win[K] = st; win.addEventListener("dragstart", function (e) { st.started = true; st.event = e; }, { capture: true, once: true }); return true; }
  var s = win[K]; return !!(s && s.started && !(s.event && s.event.defaultPrevented));
})`;

/**
 * `bp drag <from> <to>`: press on the source, move in steps, release on the target. When the
 * page starts an HTML5 drag, Chrome's drag is intercepted and replayed as drag events (a
 * synthetic pointer cannot drive the OS drag loop), ending with a drop on the target.
 */
export async function drag(ctx: CallContext, args: { from: number; to: number; limit: number; full: boolean }): Promise<Record<string, unknown>> {
  const sel = selectedTab(ctx);
  return ctx.broker.exclusive(sel.rec.targetId, async () => {
    const top = await sel.browser.session(sel.rec);
    const from = await resolveRef(sel, args.from);
    const to = await resolveRef(sel, args.to);
    const [a, b] = await probeBoth(from, to);
    const frame = frameOfRef(from);
    const watch = await ActionWatch.start(sel.browser, sel.rec, top);
    let html5 = false;
    try {
      await callInFrame(frame, DRAG_LISTEN, { op: "arm" });
      await watch.armQuiet();
      const run = pointerDrag(top, a, b, watch, async () => (html5 = await callInFrame<boolean>(frame, DRAG_LISTEN, { op: "check" }).catch(() => false)));
      run.catch(() => undefined);
      await Promise.race([run, watch.dialogOpened]);
      await watch.settle(ctx.deadline);
    } finally {
      await top.send("Input.setInterceptDrags", { enabled: false }).catch(() => undefined);
      await watch.stop();
    }
    const effects = pageEffects(watch.effects);
    const evidence = {
      action: "drag",
      ...evidenceStatus(effects),
      kind: html5 ? "html5" : "pointer",
      effects,
      from: a.target,
      to: b.target,
      points: [{ x: Math.round(a.x), y: Math.round(a.y) }, { x: Math.round(b.x), y: Math.round(b.y) }],
    };
    return finishAction(ctx, sel, evidence, watch.effects, { limit: args.limit, full: args.full }, observeLocked);
  });
}

async function pointerDrag(top: CdpSession, a: Probe, b: Probe, watch: ActionWatch, started: () => Promise<boolean>): Promise<void> {
  const mouse = (type: "mouseMoved" | "mousePressed" | "mouseReleased", x: number, y: number, buttons: number) =>
    type === "mouseMoved" ? moveMouse(top, x, y, a.hidden, buttons) : top.send("Input.dispatchMouseEvent", { type, x, y, button: "left", buttons, clickCount: 1 });
  let resolveData: (d: Protocol.Input.DragData) => void = () => undefined;
  const intercepted = new Promise<Protocol.Input.DragData>((resolve) => (resolveData = resolve));
  const off = top.on("Input.dragIntercepted", (p) => resolveData(p.data));
  try {
    await mouse("mouseMoved", a.x, a.y, 0);
    await mouse("mousePressed", a.x, a.y, 1);
    await top.send("Input.setInterceptDrags", { enabled: true });
    let data: Protocol.Input.DragData | undefined;
    for (let i = 1; i <= DRAG_STEPS; i++) {
      const x = a.x + ((b.x - a.x) * i) / DRAG_STEPS;
      const y = a.y + ((b.y - a.y) * i) / DRAG_STEPS;
      if (data) {
        await top.send("Input.dispatchDragEvent", { type: "dragOver", x, y, data });
        continue;
      }
      await mouse("mouseMoved", x, y, 1);
      if (i === 1) {
        // The page began an HTML5 drag: Chrome hands over its data instead of running the OS drag loop.
        if (await started()) data = await Promise.race([intercepted, new Promise<undefined>((r) => setTimeout(r, 1_000))]);
        await top.send("Input.setInterceptDrags", { enabled: false });
        if (data) await top.send("Input.dispatchDragEvent", { type: "dragEnter", x, y, data });
      }
      if (watch.effects.dialog) return;
    }
    // After a drop the button still goes up, as a person's would.
    if (data) await top.send("Input.dispatchDragEvent", { type: "drop", x: b.x, y: b.y, data });
    await mouse("mouseReleased", b.x, b.y, 0);
  } finally {
    off();
  }
}
