import type { CdpSession } from "../../cdp/session.ts";
import { keyboard as keyboardCommand, press as pressCommand } from "../../protocol/commands-actions.ts";
import type { KeyboardEvidence, PressEvidence } from "../../protocol/evidence.ts";
import { exactly, type ArgsOf } from "../context/handler.ts";
import { callPage, pageObject } from "../world.ts";
import { readResult, step, type PageResult } from "../page-fns.ts";
import type { TargetRecord } from "../targets.ts";
import { evidenceStatus, pageEffects, stateEffects } from "./evidence.ts";
import { callInFrame, type FrameRef } from "./frame-call.ts";
import { inputEvidence, type Prepared } from "./input-evidence.ts";
import { parseCombo, pressCombo, typeChar } from "./keys.ts";
import { CompositePin } from "./pin.ts";
import { defineAction } from "./pipeline.ts";
import { mergeEffects } from "./type.ts";

/**
 * The frame that has focus: keys go wherever the browser's focus is, and when that is inside
 * a cross-origin iframe its element lives in that frame's own session.
 */
async function focusedFrame(rec: TargetRecord, session: CdpSession): Promise<FrameRef> {
  // A page target's main frame id is its target id.
  let frame: FrameRef = { session, frameId: rec.targetId, offset: { x: 0, y: 0 } };
  for (let depth = 0; depth < 8; depth++) {
    const objectId = await pageObject(frame.session, frame.frameId, "focusedFrame").catch(() => undefined);
    if (!objectId) return frame;
    const described = await frame.session.send("DOM.describeNode", { objectId }).catch(() => undefined);
    await frame.session.send("Runtime.releaseObject", { objectId }).catch(() => undefined);
    const childId = described?.node.frameId;
    const child = childId ? rec.frames?.sessionFor(childId) : undefined;
    if (!child || !childId) return frame;
    frame = { session: child, frameId: childId, offset: { x: 0, y: 0 } };
  }
  return frame;
}

const selectAllCombo = () => parseCombo(process.platform === "darwin" ? "Meta+a" : "Control+a");

/**
 * `bp keyboard <text>`: trusted key presses, one per character, to whatever has focus (canvas
 * editors and widgets that ignore inserted text). The focused element and page are pinned
 * and re-checked before every key; a change stops the sequence there.
 */
export const keyboard = defineAction<typeof keyboardCommand, ArgsOf<typeof keyboardCommand>, KeyboardEvidence>(keyboardCommand, {
  args: (a) => a,
  observe: (a) => ({ limit: a.limit, full: a.full }),
  settled: true,
  evidence: (_run, sent) => sent,
  async dispatch({ ctx, sel, args, top, watch }) {
    const frame = await focusedFrame(sel.rec, top);
    const token = crypto.randomUUID();
    let pin: CompositePin | undefined;
    let evidence: KeyboardEvidence | undefined;
    try {
      const prep = await callInFrame(frame, "edit", { op: "active", token });
      pin = await CompositePin.capture(ctx, sel, watch, top, frame, token, "keyboard");
      const chars = [...args.text];
      const later = (from: number): string[] => [...(from < chars.length ? [from + 1 === chars.length ? `key:${from + 1}` : `key:${from + 1}..${chars.length}`] : []), ...(args.submit ? ["submit"] : [])];
      if (args.clear) {
        await pin.step("clear", later(0), async () => {
          await pressCombo(top, selectAllCombo());
          await pressCombo(top, parseCombo("Backspace"));
        });
      }
      for (const [i, ch] of chars.entries()) {
        if (i > 0 && args.delay) await Bun.sleep(args.delay);
        await pin.step(`key:${i + 1}`, later(i + 1), () => typeChar(top, ch));
      }
      await watch.settle(ctx.deadline, [], true);
      evidence = await inputEvidence("keyboard", frame, token, prep, args.text, args.clear ? "replace" : "contains", watch.effects);
      if (args.submit) {
        await pin.step("submit", [], () => pressCombo(top, parseCombo("Enter")));
        await watch.settle(ctx.deadline);
        evidence = { ...evidence, submitted: true, effects: mergeEffects(evidence.effects, watch) };
      }
    } finally {
      pin?.dispose();
    }
    return evidence;
  },
});

/** What the page edit script's "state" reports of the focus after the key (its own type). */
type FocusState = PageResult<"edit", { op: "state" }>;

/**
 * `bp press <combo>`: one key or chord as trusted events to what has focus. Evidence compares
 * the focused element's value length, selection and control state before and after, plus
 * page-level effects (navigation, dialogs, popups, DOM changes).
 */
interface Pressed {
  combo: ReturnType<typeof parseCombo>;
  before: Prepared;
  frame: FrameRef;
  token: string;
  after?: FocusState | undefined;
}

export const press = defineAction<typeof pressCommand, ArgsOf<typeof pressCommand>, Pressed>(pressCommand, {
  args: (a) => a,
  observe: (a) => ({ limit: a.limit, full: a.full }),
  async dispatch({ ctx, sel, args, top, watch }) {
    const combo = parseCombo(args.key);
    const token = crypto.randomUUID();
    // One call, on the guess that focus is in the top document (it usually is): whether it is
    // in a frame, the focus read and the quiet watcher. Focus in a frame is then found and read there.
    const steps = [step("focusInFrame", undefined), step("edit", { op: "active", token }), watch.quietStep()] as const;
    const first = await callPage(top, watch.mainFrameId, [...steps]);
    const main: FrameRef = { session: top, frameId: watch.mainFrameId, offset: { x: 0, y: 0 } };
    const frame = first.results[0] === false ? main : await focusedFrame(sel.rec, top);
    const inMain = frame.session === top && frame.frameId === watch.mainFrameId;
    const before = (inMain && readResult({ steps, results: first.results }, 1, "edit", "active")) || (await callInFrame(frame, "edit", { op: "active", token }));
    if (!watch.armed) await watch.armQuiet();
    const sent = pressCombo(top, combo);
    sent.catch(() => undefined);
    await Promise.race([sent, watch.dialogOpened]);
    if (inMain) return { combo, before, frame, token };
    // Focus inside an out-of-process frame: its state is read there, after settling.
    await watch.settle(ctx.deadline);
    const after = !watch.effects.dialog && !watch.effects.navigation ? await callInFrame(frame, "edit", { op: "state", token }).catch(() => undefined) : undefined;
    return { combo, before, frame, token, after };
  },
  settled: (_run, p) => p.frame.frameId !== _run.watch.mainFrameId || p.frame.session !== _run.top,
  readback: (_run, p) => [step("edit", { op: "state", token: p.token })],
  evidence({ watch }, p, readback) {
    const after = p.after ?? readResult(readback, 0, "edit", "state") ?? undefined;
    const { before, combo } = p;
    const effects = [...focusEffects(before, after), ...pageEffects(watch.effects)];
    return exactly<PressEvidence>()({
      action: "press",
      key: combo.name,
      ...evidenceStatus(effects),
      kind: before.kind !== "unsupported" ? before.kind : before.tag && before.tag !== "body" ? "other" : "none",
      sensitive: before.sensitive,
      effects,
    });
  },
});

function focusEffects(before: Prepared, after: FocusState | undefined): string[] {
  if (!after?.ok) return [];
  const out = stateEffects({ connected: true, ...before.control }, { connected: true, ...after.control }).filter((e) => e !== "focus_changed");
  if (before.mode !== "none" && after.length !== before.length) out.push("value_changed");
  if (after.selection !== before.selection) out.push("selection_changed");
  if (after.sameFocus === false) out.push("focus_changed");
  return [...new Set(out)];
}
