import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";
import { drag as dragCommand, hover as hoverCommand } from "../../protocol/commands-actions.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { DragEvidence, HoverEvidence } from "../../protocol/evidence.ts";
import { exactly, type ArgsOf } from "../context/handler.ts";
import type { Selected } from "../context/tabs.ts";
import { resolveRef, type ResolvedRef } from "../observe/resolve-ref.ts";
import { evidenceStatus, pageEffects, stateEffects } from "./evidence.ts";
import { callFn, readResult, step, stepResult } from "../page-fns.ts";
import { callInFrame, frameOfRef, locatedRef } from "./frame-call.ts";
import { defineAction } from "./pipeline.ts";
import { lateTimerChange } from "../settle/late.ts";
import { checkProbe, moveMouse, probeForPointer, probeStep, reachFrame, type Probe } from "./pointer.ts";
import type { Settler } from "../settle/settler.ts";

/** `bp hover <ref>`: moves the pointer onto the element after the same probe a click gets. */
export const hoverHandler = defineAction<typeof hoverCommand, ArgsOf<typeof hoverCommand>, Probe>(hoverCommand, {
  args: (a) => a,
  observe: (a) => ({ limit: a.limit, full: a.full }),
  locate: (a) => ({ ref: a.ref, steps: [probeStep({ requireEnabled: false })] }),
  armQuiet: true,
  async dispatch({ target, top, watch }) {
    const located = locatedRef(target);
    const probe = checkProbe(located, stepResult(located, 0, "act", "probe"));
    const moved =
      located.binding.session === top
        ? moveMouse(top, probe.x, probe.y, probe.hidden)
        : // A hidden tab's move is not awaited, nor looked for in the frame.
          reachFrame(top, watch.mainFrameId, located, probe, watch.dialogOpened).then((reach) =>
            reach === "skipped" ? moveMouse(top, probe.x, probe.y, probe.hidden) : undefined,
          );
    moved.catch(() => undefined);
    await Promise.race([moved, watch.dialogOpened]);
    return probe;
  },
  readback: ({ args }) => [
    step("act", { op: "state" }, { ref: args.ref }),
    step("act", { op: "hovered" }, { ref: args.ref }),
    step("act", { op: "received", input: "over" }, { ref: args.ref }),
  ],
  evidence({ watch }, probe, readback) {
    const hovered = readResult(readback, 1, "act", "hovered");
    const over = readResult(readback, 2, "act", "received");
    const effects = [
      ...stateEffects(probe.state, readResult(readback, 0, "act", "state") ?? undefined),
      ...pageEffects(watch.effects),
    ];
    // Under the pointer, or the pointer's over events reached it: the page received the hover. Else a change is no proof.
    const elsewhere = hovered !== true && over?.armed === true && over.got === false;
    const verdict =
      hovered === true || over?.got === true
        ? { status: "verified" as const }
        : elsewhere
          ? { status: "mismatch" as const, reason: "pointer_not_over_target" }
          : evidenceStatus(effects);
    return exactly<HoverEvidence>()({
      action: "hover",
      ...verdict,
      hovered: hovered === true,
      effects,
      target: probe.target,
      point: { x: Math.round(probe.x), y: Math.round(probe.y) },
      ...(elsewhere && over.by ? { received: { by: over.by } } : {}),
    });
  },
  // A menu that opens after a hover-intent delay: waited for when its timer is all that happened yet, or when the
  // element says it opens a popup that was closed before the move and still is after the settle, whatever hover
  // styling came (late.ts).
  async after(run, probe, evidence, readback) {
    const popup = probe.state?.popup === true && readResult(readback, 0, "act", "state")?.popup === true;
    if (!(await lateTimerChange(run, "pointer", popup))) return undefined;
    const effects = [...new Set([...(evidence.effects ?? []), ...pageEffects(run.watch.effects)])];
    const { reason: _none, ...rest } = evidence;
    return exactly<HoverEvidence>()({
      ...rest,
      ...(evidence.hovered || evidence.status === "verified"
        ? { status: "verified" as const }
        : evidence.status === "mismatch"
          ? { status: "mismatch" as const, reason: "pointer_not_over_target" }
          : evidenceStatus(effects)),
      effects,
    });
  },
});

/**
 * Probes both ends so that both are on screen at once: the source centred, else the target
 * centred. `ahead`: the target's probe without scrolling, already run right after the source's
 * centring (a failure to throw again, or the probe).
 */
async function probeBoth(from: ResolvedRef, to: ResolvedRef, a: Probe, ahead?: () => Probe): Promise<[Probe, Probe]> {
  try {
    return [a, ahead ? ahead() : await probeForPointer(to, { requireEnabled: false, noScroll: true })];
  } catch (err) {
    if (!(err instanceof BpError) || err.context?.reason !== "outside_viewport") throw err;
  }
  const b = await probeForPointer(to, { requireEnabled: false });
  try {
    return [await probeForPointer(from, { noScroll: true }), b];
  } catch (err) {
    if (!(err instanceof BpError) || err.context?.reason !== "outside_viewport") throw err;
    throw new BpError(
      "action_not_verified",
      `Refs ${from.ref} and ${to.ref} do not fit in the viewport together; nothing was sent.`,
      {
        retryable: true,
        context: { ref: from.ref, reason: "too_far_apart", dispatched: false },
        hint: "Scroll so both are visible, or drag in shorter hops.",
      },
    );
  }
}

interface Ends {
  from: ResolvedRef;
  to: ResolvedRef | undefined;
  a: Probe;
  b: Probe;
}

/**
 * The drag's two ends: the target's centre moved by --offset, or the --to-xy point. Both refs are
 * resolved and probed in one round trip: a session runs its calls in order, so in one document
 * the target's probe runs after the source was centred, as when asked after it. A target in
 * another document than the source's is probed again once the source is centred.
 */
async function dropPoint(
  sel: Selected,
  args: { from: number; to?: number | undefined; offset?: string | undefined; "to-xy"?: string | undefined },
): Promise<Ends> {
  const offset = args.offset === undefined ? [0, 0] : pair("offset", args.offset);
  const source = resolveRef(sel, args.from, [probeStep()]);
  const target =
    args.to === undefined
      ? undefined
      : resolveRef(sel, args.to, [probeStep({ requireEnabled: false, noScroll: true })]);
  target?.catch(() => undefined);
  const from = await source;
  const a = checkProbe(from, stepResult(from, 0, "act", "probe"));
  if (target) {
    const to = await target;
    // In another document (a frame: another session, or a world the source's call had to ask for
    // first) the target's call may have run before the source was centred: ask again.
    const ahead =
      to.session === from.session && to.binding.frameId === from.binding.frameId
        ? () => checkProbe(to, stepResult(to, 0, "act", "probe"))
        : undefined;
    const [pa, b] = await probeBoth(from, to, a, ahead);
    return { from, to, a: pa, b: { ...b, x: b.x + (offset[0] ?? 0), y: b.y + (offset[1] ?? 0) } };
  }
  const [x, y] = pair("to-xy", args["to-xy"] ?? "");
  return { from, to: undefined, a, b: { ...a, x: (x ?? 0) + (offset[0] ?? 0), y: (y ?? 0) + (offset[1] ?? 0) } };
}

function pair(field: string, text: string): number[] {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m) throw invalidArgument(field, `--${field} takes 'x,y' in CSS px.`);
  return [Number(m[1]), Number(m[2])];
}

const DRAG_STEPS = 8;

/**
 * `bp drag <from> <to>`: press on the source, move in steps, release on the target. An HTML5 drag is intercepted and
 * replayed as drag events (a synthetic pointer cannot drive the OS drag loop).
 */
export const dragHandler = defineAction<typeof dragCommand, ArgsOf<typeof dragCommand>, DragEvidence>(dragCommand, {
  args: (a) => a,
  observe: (a) => ({ limit: a.limit, full: a.full }),
  // The inputs are the presses, moves and drag events, not the probes, checks or settle around them.
  async *steps({ sel, args, top, watch }) {
    const { from, to, a, b } = await dropPoint(sel, args);
    const frame = frameOfRef(from);
    let html5 = false;
    let ended = false;
    try {
      await Promise.all([callInFrame(frame, "drag", { op: "arm" }), watch.armQuiet()]);
      const run = pointerDrag(
        top,
        a,
        b,
        watch,
        async () => (html5 = await callFn(frame, "drag", { op: "check" }).catch(() => false)),
      ).then(() => {
        ended = true;
      });
      run.catch(() => undefined);
      await Promise.race([run, watch.dialogOpened]);
      yield {};
    } finally {
      // A drag that ran to its end turned the interception off after its first move; one stopped
      // part way (an error, a dialog) may have left it on.
      if (!ended) await top.send("Input.setInterceptDrags", { enabled: false }).catch(() => undefined);
    }
    const effects = pageEffects(watch.effects);
    // An HTML5 drag is verified by its drop reaching the target; a drop at a point (--to-xy), by its effects.
    const drop =
      html5 && to && !watch.effects.navigation && !watch.effects.dialog
        ? await callFn(frameOfRef(to), "act", { op: "received", input: "drop" }, { ref: to.ref }).catch(() => undefined)
        : undefined;
    const missed = drop?.armed === true && drop.got === false;
    return exactly<DragEvidence>()({
      action: "drag",
      ...(missed ? { status: "mismatch" as const, reason: "drop_not_received" } : evidenceStatus(effects)),
      ...(missed && drop.by ? { received: { by: drop.by } } : {}),
      kind: html5 ? "html5" : "pointer",
      effects,
      from: a.target,
      ...(args.to !== undefined ? { to: b.target } : {}),
      points: [
        { x: Math.round(a.x), y: Math.round(a.y) },
        { x: Math.round(b.x), y: Math.round(b.y) },
      ],
    });
  },
  evidence: (_run, sent) => sent,
});

async function pointerDrag(
  top: CdpSession,
  a: Probe,
  b: Probe,
  watch: Settler,
  started: () => Promise<boolean>,
): Promise<void> {
  const mouse = (type: "mouseMoved" | "mousePressed" | "mouseReleased", x: number, y: number, buttons: number) =>
    watch.input(
      () =>
        type === "mouseMoved"
          ? moveMouse(top, x, y, a.hidden, buttons)
          : top.send("Input.dispatchMouseEvent", { type, x, y, button: "left", buttons, clickCount: 1 }),
      true,
    );
  const dragEvent = (type: "dragEnter" | "dragOver" | "drop", x: number, y: number, data: Protocol.Input.DragData) =>
    watch.input(() => top.send("Input.dispatchDragEvent", { type, x, y, data }), true);
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
        await dragEvent("dragOver", x, y, data);
        continue;
      }
      await mouse("mouseMoved", x, y, 1);
      if (i === 1) {
        // The page began an HTML5 drag: Chrome hands over its data instead of running the OS drag loop.
        if (await started())
          data = await Promise.race([intercepted, new Promise<undefined>((r) => setTimeout(r, 1_000))]);
        await top.send("Input.setInterceptDrags", { enabled: false });
        if (data) await dragEvent("dragEnter", x, y, data);
      }
      if (watch.effects.dialog) return;
    }
    // After a drop the button still goes up, as a person's would.
    if (data) await dragEvent("drop", b.x, b.y, data);
    await mouse("mouseReleased", b.x, b.y, 0);
  } finally {
    off();
  }
}
