import type { CdpSession } from "../../cdp/session.ts";
import { EDIT_SOURCE } from "../../page/act-edit.ts";
import { observeLocked } from "../observe/snapshot.ts";
import { selectedTab } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { objectInWorld } from "../world.ts";
import type { TargetRecord } from "../targets.ts";
import { evidenceStatus, pageEffects, stateEffects } from "./evidence.ts";
import { callInFrame, type FrameRef } from "./frame-call.ts";
import { inputEvidence, type Prepared } from "./input-evidence.ts";
import { parseCombo, pressCombo, typeChar } from "./keys.ts";
import { CompositePin } from "./pin.ts";
import type { ElementState } from "./pointer.ts";
import { finishAction } from "./result.ts";
import { mergeEffects } from "./type.ts";
import { ActionWatch } from "./watch.ts";

export interface KeyboardArgs {
  text: string;
  clear: boolean;
  submit: boolean;
  delay?: number;
  limit: number;
  full: boolean;
}

/** The focused element when it is an iframe whose document this world cannot reach (out of process). */
const FOCUSED_FRAME = `function (win) {
  var a = win.document.activeElement;
  for (var i = 0; a && i < 64; i++) {
    var inner = null;
    if (a.shadowRoot && a.shadowRoot.activeElement) inner = a.shadowRoot.activeElement;
    else if (a.localName === "iframe" || a.localName === "frame") { try { inner = a.contentDocument && a.contentDocument.activeElement; } catch (e) { inner = null; } if (!inner) return a; }
    if (!inner || inner === a) return null;
    a = inner;
  }
  return null;
}`;

/**
 * The frame that has focus: keys go wherever the browser's focus is, and when that is inside
 * a cross-origin iframe its element lives in that frame's own session.
 */
async function focusedFrame(rec: TargetRecord, session: CdpSession): Promise<FrameRef> {
  const { frameTree } = await session.send("Page.getFrameTree");
  let frame: FrameRef = { session, frameId: frameTree.frame.id, offset: { x: 0, y: 0 } };
  for (let depth = 0; depth < 8; depth++) {
    const objectId = await objectInWorld(frame.session, frame.frameId, FOCUSED_FRAME, null).catch(() => undefined);
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
export async function keyboard(ctx: CallContext, args: KeyboardArgs): Promise<Record<string, unknown>> {
  const sel = selectedTab(ctx);
  return ctx.broker.exclusive(sel.rec.targetId, async () => {
    const top = await sel.browser.session(sel.rec);
    const frame = await focusedFrame(sel.rec, top);
    const token = crypto.randomUUID();
    const watch = await ActionWatch.start(sel.browser, sel.rec, top);
    let pin: CompositePin | undefined;
    let evidence: Record<string, unknown> | undefined;
    try {
      const prep = await callInFrame<Prepared>(frame, EDIT_SOURCE, { op: "active", token });
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
      await watch.settle(ctx.deadline);
      evidence = await inputEvidence("keyboard", frame, token, prep, args.text, args.clear ? "replace" : "contains", watch.effects);
      if (args.submit) {
        await pin.step("submit", [], () => pressCombo(top, parseCombo("Enter")));
        await watch.settle(ctx.deadline);
        evidence = { ...evidence, submitted: true, effects: mergeEffects(evidence.effects, watch) };
      }
    } finally {
      pin?.dispose();
      await watch.stop();
    }
    return finishAction(ctx, sel, evidence ?? {}, watch.effects, { limit: args.limit, full: args.full }, observeLocked);
  });
}

interface FocusState {
  ok: boolean;
  sameFocus?: boolean;
  length?: number;
  selection?: string;
  control?: Record<string, unknown>;
}

/**
 * `bp press <combo>`: one key or chord as trusted events to what has focus. Evidence compares
 * the focused element's value length, selection and control state before and after, plus
 * page-level effects (navigation, dialogs, popups, DOM changes).
 */
export async function press(ctx: CallContext, args: { key: string; limit: number; full: boolean }): Promise<Record<string, unknown>> {
  const combo = parseCombo(args.key);
  const sel = selectedTab(ctx);
  return ctx.broker.exclusive(sel.rec.targetId, async () => {
    const top = await sel.browser.session(sel.rec);
    const frame = await focusedFrame(sel.rec, top);
    const token = crypto.randomUUID();
    const watch = await ActionWatch.start(sel.browser, sel.rec, top);
    let before: Prepared;
    let after: FocusState | undefined;
    try {
      before = await callInFrame<Prepared>(frame, EDIT_SOURCE, { op: "active", token });
      await watch.armQuiet();
      const sent = pressCombo(top, combo);
      sent.catch(() => undefined);
      await Promise.race([sent, watch.dialogOpened]);
      await watch.settle(ctx.deadline);
      if (!watch.effects.dialog && !watch.effects.navigation) after = await callInFrame<FocusState>(frame, EDIT_SOURCE, { op: "state", token }).catch(() => undefined);
    } finally {
      await watch.stop();
    }
    const effects = [...focusEffects(before, after), ...pageEffects(watch.effects)];
    const evidence: Record<string, unknown> = {
      action: "press",
      key: combo.name,
      ...evidenceStatus(effects),
      kind: before.kind !== "unsupported" ? before.kind : before.tag && before.tag !== "body" ? "other" : "none",
      sensitive: before.sensitive,
      effects,
    };
    return finishAction(ctx, sel, evidence, watch.effects, { limit: args.limit, full: args.full }, observeLocked);
  });
}

function focusEffects(before: Prepared, after: FocusState | undefined): string[] {
  if (!after?.ok) return [];
  const out = stateEffects({ connected: true, ...(before.control as Partial<ElementState>) }, { connected: true, ...(after.control as Partial<ElementState>) }).filter((e) => e !== "focus_changed");
  if (before.mode !== "none" && after.length !== before.length) out.push("value_changed");
  if (after.selection !== before.selection) out.push("selection_changed");
  if (after.sameFocus === false) out.push("focus_changed");
  return [...new Set(out)];
}
