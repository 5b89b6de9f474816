import type { CdpSession } from "../../cdp/session.ts";
import { keyboard as keyboardCommand, press as pressCommand } from "../../protocol/commands-actions.ts";
import type { KeyboardEvidence, PressEvidence } from "../../protocol/evidence.ts";
import { exactly, type ArgsOf } from "../context/handler.ts";
import { callPage, pageObject } from "../world.ts";
import { readResult, step, type PageResult } from "../page-fns.ts";
import type { TargetRecord } from "../targets.ts";
import { evidenceStatus, pageEffects, stateEffects } from "./evidence.ts";
import { callInFrame } from "./frame-call.ts";
import type { FrameWorld } from "../frame-world.ts";
import { inputEvidence, readEvidence, readStep, type Prepared } from "./input-evidence.ts";
import type { ReadMode } from "../../page/act/edit.ts";
import type { Selected } from "../context/tabs.ts";
import type { Settler } from "../settle/settler.ts";
import { parseCombo, pressCombo, typeChar, typesText } from "./keys.ts";
import { CompositePin } from "./pin.ts";
import { defineAction } from "./pipeline.ts";
import { mergeEffects, nonEmpty } from "./type.ts";

/**
 * The frame that has focus: keys go wherever the browser's focus is, and when that is inside
 * a cross-origin iframe its element lives in that frame's own session.
 */
async function focusedFrame(rec: TargetRecord, session: CdpSession): Promise<FrameWorld> {
  // A page target's main frame id is its target id.
  let frame: FrameWorld = { session, frameId: rec.targetId, offset: { x: 0, y: 0 } };
  for (let depth = 0; depth < 8; depth++) {
    const objectId = await pageObject(frame.session, frame.frameId, "focusedFrame").catch(() => undefined);
    if (!objectId) return frame;
    const described = await frame.session.send("DOM.describeNode", { objectId }).catch(() => undefined);
    void frame.session.send("Runtime.releaseObject", { objectId }).catch(() => undefined);
    const childId = described?.node.frameId;
    const child = childId ? rec.frames?.sessionFor(childId) : undefined;
    if (!child || !childId) return frame;
    frame = { session: child, frameId: childId, offset: { x: 0, y: 0 } };
  }
  return frame;
}

const selectAllCombo = () => parseCombo(process.platform === "darwin" ? "Meta+a" : "Control+a");

/**
 * `bp keyboard <text>`: trusted key presses, one per character, to whatever has focus; pinned and re-checked per key.
 */
export const keyboardHandler = defineAction<
  typeof keyboardCommand,
  ArgsOf<typeof keyboardCommand> & { token: string },
  Keyed
>(keyboardCommand, {
  args: (a) => ({ ...nonEmpty(a), token: crypto.randomUUID() }),
  observe: (a) => ({ limit: a.limit, full: a.full }),
  typing: true,
  readback: ({ args }, sent) => (sent.plan?.inTop ? [readStep(args.token, args.text, sent.plan.mode)] : []),
  evidence({ args, watch }, sent, readback) {
    if (sent.evidence) return sent.evidence;
    const { prep, mode, inTop } = sent.plan;
    const read = inTop
      ? readback.results.length > 0
        ? readResult(readback, 0, "edit", "read")
        : null
      : (sent.plan.read ?? null);
    return readEvidence("keyboard", prep, args.text, mode, watch.effects, read);
  },
  // With --submit the steps settle and read back before Enter and after it; otherwise the reply's settle call reads
  // back (a field in a frame: read there after its own settle).
  async *steps({ ctx, sel, args, top, watch }) {
    const token = args.token;
    const { frame, prep, inMain } = await focusAndArm(sel, top, watch, token);
    let pin: CompositePin | undefined;
    try {
      pin = inMain
        ? await CompositePin.prepared(ctx, sel, watch, top, frame, token, "keyboard", prep.url)
        : await CompositePin.capture(ctx, sel, watch, top, frame, token, "keyboard");
      const chars = [...args.text];
      const later = (from: number): string[] => [
        ...(from < chars.length
          ? [from + 1 === chars.length ? `key:${from + 1}` : `key:${from + 1}..${chars.length}`]
          : []),
        ...(args.submit ? ["submit"] : []),
      ];
      // The call that just read the focus pinned it: the first step checks only what the broker knows.
      let fresh = inMain;
      if (args.clear) {
        await pin.step(
          "clear",
          later(0),
          async () => {
            await pressCombo(top, selectAllCombo());
            await pressCombo(top, parseCombo("Backspace"));
          },
          { fresh, text: true },
        );
        fresh = false;
      }
      for (const [i, ch] of chars.entries()) {
        if (i > 0 && args.delay) await Bun.sleep(args.delay);
        await pin.step(`key:${i + 1}`, later(i + 1), () => typeChar(top, ch), {
          fresh,
          text: typesText(ch) && prep.mode !== "none",
        });
        fresh = false;
      }
      const mode = args.clear ? "replace" : "contains";
      if (!args.submit) {
        // A field in a frame: settled here and read there; in the top document the reply's call does both.
        if (inMain) return { plan: { prep, mode, frame, inTop: true } };
        yield { typing: true };
        const read =
          watch.effects.dialog || prep.mode === "none"
            ? null
            : await callInFrame(frame, "edit", { op: "read", token, text: args.text, mode }).catch(() => null);
        return { plan: { prep, mode, frame, inTop: false, read } };
      }
      yield { typing: true };
      let evidence = await inputEvidence("keyboard", frame, token, prep, args.text, mode, watch.effects);
      await pin.step("submit", [], () => pressCombo(top, parseCombo("Enter")));
      yield {};
      evidence = { ...evidence, submitted: true, effects: mergeEffects(evidence.effects, watch) };
      return { evidence };
    } finally {
      pin?.dispose();
    }
  },
});

type Keyed =
  | { evidence: KeyboardEvidence; plan?: undefined }
  | {
      evidence?: undefined;
      plan: {
        prep: Prepared;
        mode: ReadMode;
        frame: FrameWorld;
        inTop: boolean;
        read?: PageResult<"edit", { op: "read" }> | null;
      };
    };

/**
 * Reads what has focus and arms the quiet watcher in one call, on the guess that focus is in
 * the top document (it usually is); focus inside a frame is then found and read there.
 */
async function focusAndArm(
  sel: Selected,
  top: CdpSession,
  watch: Settler,
  token: string,
): Promise<{ frame: FrameWorld; prep: Prepared; inMain: boolean }> {
  const steps = [step("focusInFrame", undefined), step("edit", { op: "active", token }), watch.quietStep()] as const;
  const first = await callPage(top, watch.mainFrameId, [...steps]);
  const main: FrameWorld = { session: top, frameId: watch.mainFrameId, offset: { x: 0, y: 0 } };
  const frame = first.results[0] === false ? main : await focusedFrame(sel.rec, top);
  const inMain = frame.session === top && frame.frameId === watch.mainFrameId;
  const prep =
    (inMain && readResult({ steps, results: first.results }, 1, "edit", "active")) ||
    (await callInFrame(frame, "edit", { op: "active", token }));
  if (!watch.armed) await watch.armQuiet();
  return { frame, prep, inMain };
}

type FocusState = PageResult<"edit", { op: "state" }>;

/** `bp press <combo>`: one key or chord to what has focus; evidence compares the focused element before and after. */
interface Pressed {
  combo: ReturnType<typeof parseCombo>;
  before: Prepared;
  frame: FrameWorld;
  token: string;
  /** Focus was in the top document: its state is read back in the reply's settle call. */
  inMain: boolean;
  after?: FocusState | undefined;
}

export const pressHandler = defineAction<typeof pressCommand, ArgsOf<typeof pressCommand>, Pressed>(pressCommand, {
  args: (a) => a,
  observe: (a) => ({ limit: a.limit, full: a.full }),
  // The key is the one input (not the focus read before it). Focus in a frame: settled and read there.
  async *steps({ sel, args, top, watch }) {
    const combo = parseCombo(args.key);
    const token = crypto.randomUUID();
    const { frame, prep: before, inMain } = await focusAndArm(sel, top, watch, token);
    // A printable key into an editable field types text (what the page sends then, a typing
    // indicator, answers no command: settle/requests/requests.ts); on a button or the page it is a command.
    const sent = watch.input(() => pressCombo(top, combo), true, typesText(combo.key) && before.mode !== "none");
    sent.catch(() => undefined);
    await Promise.race([sent, watch.dialogOpened]);
    if (inMain) return { combo, before, frame, token, inMain };
    yield {};
    const after =
      !watch.effects.dialog && !watch.effects.navigation
        ? await callInFrame(frame, "edit", { op: "state", token }).catch(() => undefined)
        : undefined;
    return { combo, before, frame, token, inMain, after };
  },
  readback: (_run, p) => (p.inMain ? [step("edit", { op: "state", token: p.token })] : []),
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
  const out = stateEffects({ connected: true, ...before.control }, { connected: true, ...after.control }).filter(
    (e) => e !== "focus_changed",
  );
  if (before.mode !== "none" && after.length !== before.length) out.push("value_changed");
  if (after.selection !== before.selection) out.push("selection_changed");
  if (after.sameFocus === false) out.push("focus_changed");
  return [...new Set(out)];
}
