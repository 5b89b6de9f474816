import { click as command } from "../../protocol/commands-actions.ts";
import { invalidArgument } from "../../shared/errors.ts";
import type { CdpSession } from "../../cdp/session.ts";
import type { ClickEvidence, EvidenceElement } from "../../protocol/evidence.ts";
import { exactly, type ArgsOf } from "../context/handler.ts";
import type { Selected } from "../context/tabs.ts";
import { callFn, readResult, step, stepResult, type PageResult } from "../page-fns.ts";
import { clickStatus, pageEffects, stateEffects } from "./evidence.ts";
import { defineAction } from "./pipeline.ts";
import { lateTimerChange } from "../settle/late.ts";
import { checkProbe, dispatchClick, probeStep, reachFrame, type Probe } from "./pointer.ts";

interface Clicked {
  x: number;
  y: number;
  probe: Probe | undefined;
  hit: EvidenceElement | undefined;
}

/**
 * `bp click <ref>|--xy x,y`: a real pointer click after the probe proved it lands; evidence compares state and effects.
 */
export const clickByRef = defineAction<typeof command, ArgsOf<typeof command>, Clicked>(command, {
  args: (a) => a,
  observe: (a) => ({ limit: a.limit, full: a.full }),
  locate: (a) => (a.ref !== undefined ? { ref: a.ref, steps: [probeStep()] } : undefined),
  armQuiet: true,
  async dispatch({ sel, args, target, top, watch }) {
    const probe = target ? checkProbe(target, stepResult(target, 0, "act", "probe")) : undefined;
    const [x, y] = probe ? [probe.x, probe.y] : parseXy(args.xy ?? "");
    // Say what is under the point, so a coordinate click is not a blind one.
    const hit = probe ? undefined : await pointTarget(sel, top, x, y);
    const reach =
      probe && target ? await reachFrame(top, watch.mainFrameId, target, probe, watch.dialogOpened) : "skipped";
    if (reach === "dialog") return { x, y, probe, hit };
    const button = args.right ? "right" : "left";
    const sent = dispatchClick(top, x, y, button, args.double ? 2 : 1, probe?.hidden, reach === "moved");
    sent.catch(() => undefined);
    await Promise.race([sent, watch.dialogOpened]);
    return { x, y, probe, hit };
  },
  readback: ({ args }) =>
    args.ref !== undefined
      ? [
          step("act", { op: "state" }, { ref: args.ref }),
          step("act", { op: "received", input: clickInput(args) }, { ref: args.ref }),
        ]
      : [],
  evidence({ target, watch }, { x, y, probe, hit }, readback) {
    const before = probe?.state;
    const afterState = readResult(readback, 0, "act", "state") ?? undefined;
    const effects = [...stateEffects(before, afterState), ...pageEffects(watch.effects)];
    const miss = notReceived(readResult(readback, 1, "act", "received"));
    const verdict = miss ? miss.verdict : verdictOf(target !== undefined, before?.kind, effects);
    return exactly<ClickEvidence>()({
      action: "click",
      ...verdict,
      kind: target ? (before?.kind ?? "other") : "coordinates",
      effects,
      ...(probe?.target ? { target: probe.target } : hit ? { target: hit } : {}),
      point: { x: Math.round(x), y: Math.round(y) },
      ...(afterState?.checked !== undefined ? { checked: afterState.checked } : {}),
      ...(afterState?.focused !== undefined ? { focused: afterState.focused } : {}),
      ...(miss ? { received: miss.received } : {}),
    });
  },
  // Nothing changed yet but the click's handlers set a timer: its change is waited for (late.ts).
  async after(run, _sent, evidence) {
    if (evidence.received || !(await lateTimerChange(run, "press"))) return undefined;
    const effects = [...new Set([...(evidence.effects ?? []), ...pageEffects(run.watch.effects)])];
    const { reason: _none, ...rest } = evidence;
    return exactly<ClickEvidence>()({
      ...rest,
      ...verdictOf(run.target !== undefined, evidence.kind === "coordinates" ? undefined : evidence.kind, effects),
      effects,
    });
  },
});

function verdictOf(
  onRef: boolean,
  kind: string | undefined,
  effects: string[],
): { status: "verified" | "mismatch" | "unavailable"; reason?: string } {
  // Every click focuses what it presses: focus alone is no effect.
  return onRef
    ? clickStatus(
        kind,
        effects.filter((e) => e !== "focus_changed"),
      )
    : { status: effects.length > 0 ? "verified" : "unavailable", reason: "coordinate_target" };
}

function clickInput(args: ArgsOf<typeof command>): "click" | "dblclick" | "contextmenu" {
  return args.right ? "contextmenu" : args.double ? "dblclick" : "click";
}

/** A click the page did not receive on the element is a mismatch whatever changed; none when it could not say. */
function notReceived(
  r: PageResult<"act", { op: "received" }> | null | undefined,
): { verdict: { status: "mismatch"; reason: string }; received: NonNullable<ClickEvidence["received"]> } | undefined {
  if (!r?.armed || r.got !== false) return undefined;
  const reason =
    r.pressed === false
      ? "input_not_received"
      : r.down !== undefined
        ? "pressed_and_released_on_different_elements"
        : r.by
          ? "click_received_elsewhere"
          : "click_not_fired";
  const el = (e: EvidenceElement | null | undefined) => e ?? undefined;
  const received = {
    ...(r.by ? { by: el(r.by) } : {}),
    ...(r.down ? { down: el(r.down) } : {}),
    ...(r.up ? { up: el(r.up) } : {}),
  };
  return { verdict: { status: "mismatch", reason }, received };
}

/** The element at a viewport point of the main frame, with its ref when the agent was shown it there. */
async function pointTarget(sel: Selected, top: CdpSession, x: number, y: number): Promise<EvidenceElement | undefined> {
  const mainFrame = sel.rec.targetId;
  const hit = await callFn({ session: top, frameId: mainFrame }, "hitAt", { x, y }).catch(() => null);
  if (!hit) return undefined;
  const { ref, ...rest } = hit;
  const obs = sel.agent.observations.get(sel.rec.targetId);
  return { ...rest, ...(ref !== undefined && obs?.refs.get(ref)?.frameId === mainFrame ? { ref } : {}) };
}

function parseXy(text: string): [number, number] {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m) throw invalidArgument("xy", "--xy takes 'x,y' in viewport CSS px.");
  return [Number(m[1]), Number(m[2])];
}
