import type { CdpSession } from "../../cdp/session.ts";
import type { ProbeHit, ProbeMiss, State } from "../../page/act/probe.ts";
import { BpError } from "../../shared/errors.ts";
import { callFn, step, type StepAt } from "../page-fns.ts";
import type { FrameWorld } from "../frame-world.ts";
import { staleRef, type ResolvedRef } from "../observe/resolve-ref.ts";
import { forgetPointer, notePointer, pointerAt } from "../pointer-at.ts";
import { cutString } from "../../shared/page-strings.ts";

export type ElementState = State;

export type Probe = ProbeHit;

function probeArg(opts: { requireEnabled?: boolean; noScroll?: boolean }) {
  return { op: "probe" as const, requireEnabled: opts.requireEnabled !== false, noScroll: opts.noScroll === true };
}

export function probeStep(opts: { requireEnabled?: boolean; noScroll?: boolean } = {}, at: StepAt = {}) {
  return step("act", probeArg(opts), at);
}

/**
 * Proves before anything is sent that a pointer event at the returned point reaches the element (visible, enabled,
 * topmost).
 */
export async function probeForPointer(
  r: ResolvedRef,
  opts: { requireEnabled?: boolean; noScroll?: boolean } = {},
): Promise<Probe> {
  return checkProbe(r, await callFn(r.binding, "act", probeArg(opts), { ref: r.ref }));
}

export function checkProbe(
  r: { ref: number; binding: { offset: { x: number; y: number } } },
  probe: ProbeHit | ProbeMiss,
): Probe {
  if (probe.ok) return { ...probe, x: probe.x + r.binding.offset.x, y: probe.y + r.binding.offset.y };
  if (probe.reason === "detached") throw staleRef(r.ref, "node_detached");
  const what = probe.obstruction ? describeObstruction(probe.obstruction) : undefined;
  const message =
    probe.reason === "obscured"
      ? `Ref ${r.ref} is covered by ${what ?? "another element"}; nothing was sent.`
      : `Ref ${r.ref} cannot take a pointer event (${(probe.reason ?? "unknown").replace("_", " ")}); nothing was sent.`;
  // A wall with nothing to close it: retrying the click cannot help, the keyboard or a person may.
  const wall = probe.reason === "obscured" && probe.obstructionControls === 0;
  throw new BpError("action_not_verified", message, {
    retryable: !wall,
    context: {
      ref: r.ref,
      reason: probe.reason,
      dispatched: false,
      ...(probe.obstruction ? { obstruction: probe.obstruction } : {}),
      ...(wall ? { obstructionControls: 0 } : {}),
    },
    hint: wall
      ? `${what ?? "The covering element"} has no control to close it. Activate the target by keyboard ('bp press Tab' until it has focus, then 'bp press Enter'), wait for the cover to go ('bp wait'), or hand the tab to a person ('bp handoff').`
      : probe.reason === "obscured"
        ? `Close or answer ${what ?? "the covering element"} (its controls are in 'bp snapshot'), then retry.`
        : "Run 'bp snapshot' and pick an enabled, visible element.",
  });
}

function describeObstruction(o: { tagName: string; id?: string; role?: string; name?: string }): string {
  return `${o.role ?? o.tagName}${o.id ? `#${o.id}` : ""}${o.name ? ` "${cutString(o.name, 60)}"` : ""}`;
}

export type MouseButton = "left" | "right";

/** Mouse moves wait for a frame a background tab never renders (~5 s): in a hidden tab the move is not awaited. */
export async function moveMouse(
  session: CdpSession,
  x: number,
  y: number,
  hidden: boolean | undefined,
  buttons = 0,
): Promise<void> {
  const sent = session.send("Input.dispatchMouseEvent", {
    type: "mouseMoved",
    x,
    y,
    button: buttons ? "left" : "none",
    buttons,
  });
  sent.catch(() => undefined);
  // A move with a button held is part of a drag, whose press and release go out elsewhere.
  if (buttons) forgetPointer(session);
  else notePointer(session, x, y);
  if (hidden === true) return;
  if (hidden === false) {
    await sent;
    return;
  }
  await Promise.race([sent, Bun.sleep(MOVE_ACK_GRACE_MS)]);
}

const MOVE_ACK_GRACE_MS = 100;

/** A real pointer click at top-level viewport coordinates; the events go out together (one round trip). */
export async function dispatchClick(
  session: CdpSession,
  x: number,
  y: number,
  button: MouseButton,
  clickCount: 1 | 2,
  hidden?: boolean,
  /** The pointer was just moved there and the page took it (reachFrame). */
  there = false,
): Promise<void> {
  const moved = there || pointerAt(session, x, y) ? undefined : moveMouse(session, x, y, hidden);
  const sent: Promise<unknown>[] = [];
  for (let n = 1; n <= clickCount; n++) {
    sent.push(
      session.send("Input.dispatchMouseEvent", {
        type: "mousePressed",
        x,
        y,
        button,
        buttons: button === "left" ? 1 : 2,
        clickCount: n,
      }),
    );
    sent.push(
      session.send("Input.dispatchMouseEvent", { type: "mouseReleased", x, y, button, buttons: 0, clickCount: n }),
    );
  }
  for (const p of sent) p.catch(() => undefined);
  try {
    await moved;
    await Promise.all(sent);
  } catch (err) {
    // Where the pointer ended up is not known now.
    forgetPointer(session);
    throw err;
  }
}

/** What reachFrame did: moved the pointer onto the frame, stopped for a dialog, or left it (not such a frame, a hidden tab). */
export type Reach = "moved" | "dialog" | "skipped";

/**
 * A frame another renderer draws takes the pointer only once the browser can hit it (after its first
 * drawn frame) and where the page around it does not cover it; otherwise the browser hands the input to
 * the page around it, on the <iframe> box or the cover. The frame's probe cannot see either. So the
 * move goes alone first, again each frame until the pointer is in the frame's document, and only then
 * the press; a point the frame never takes is refused with no press sent. A dialog a move's handlers
 * open ends it: the page answers nothing until the dialog is.
 */
export async function reachFrame(
  top: CdpSession,
  mainFrame: string,
  target: { ref: number; binding: FrameWorld },
  probe: Probe,
  dialog: Promise<unknown>,
): Promise<Reach> {
  if (target.binding.session === top || probe.hidden === true) return "skipped";
  const opened = dialog.then(() => "dialog" as const);
  const until = Date.now() + FRAME_REACH_MS;
  try {
    for (;;) {
      const moved = await Promise.race([moveMouse(top, probe.x, probe.y, probe.hidden), opened]);
      if (moved === "dialog") return moved;
      const asked = callFn(target.binding, "act", { op: "reached" }, { ref: target.ref }).catch(() => true);
      const reached = await Promise.race([asked, opened]);
      if (reached === "dialog") return reached;
      if (reached !== false) return "moved";
      if (Date.now() >= until) break;
    }
  } catch (err) {
    // Where the pointer ended up is not known now.
    forgetPointer(top);
    throw err;
  }
  forgetPointer(top);
  const hit = await callFn({ session: top, frameId: mainFrame }, "hitAt", { x: probe.x, y: probe.y }).catch(() => null);
  // The frame's own box at the point: the browser cannot hit the frame yet (it has not drawn).
  const covered = hit && hit.tagName !== "iframe" && hit.tagName !== "frame" ? hit : undefined;
  const { ref: _ref, ...obstruction } = covered ?? { ref: undefined };
  throw new BpError(
    "action_not_verified",
    covered
      ? `Ref ${target.ref} is in a frame that ${describeObstruction(covered)} of the page around it covers; only pointer moves were sent, no press.`
      : `Ref ${target.ref} is in a frame the browser does not send the pointer to; only pointer moves were sent, no press.`,
    {
      retryable: true,
      context: {
        ref: target.ref,
        reason: covered ? "obscured" : "frame_not_reached",
        dispatched: false,
        ...(covered ? { obstruction } : {}),
      },
      hint: covered
        ? `Close or answer ${describeObstruction(covered)} (its controls are in 'bp snapshot'), or use the keyboard ('bp press Tab' to the control, then 'bp press Enter').`
        : "Retry once the frame has drawn ('bp wait' first), or use the keyboard ('bp press Tab' to the control, then 'bp press Enter').",
    },
  );
}

/** How long a move may take to reach a frame another renderer draws (its first frame after a load). */
const FRAME_REACH_MS = 1_000;
