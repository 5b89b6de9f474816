import type { CdpSession } from "../../cdp/session.ts";
import { type as command } from "../../protocol/commands-actions.ts";
import type { TypeEvidence } from "../../protocol/evidence.ts";
import { BpError } from "../../shared/errors.ts";
import type { ArgsOf } from "../context/handler.ts";
import { staleRef, type ResolvedRef } from "../observe/resolve-ref.ts";
import { pageEffects } from "./evidence.ts";
import { callFn, readResult, step as pageStep, stepResult } from "../page-fns.ts";
import { callInFrame, frameOfRef, locatedRef, type FrameRef } from "./frame-call.ts";
import { assertEditable, inputEvidence, readStep } from "./input-evidence.ts";
import { parseCombo, pressCombo } from "./keys.ts";
import { CompositePin } from "./pin.ts";
import { dispatchClick, probeForPointer, type Probe } from "./pointer.ts";
import { defineAction } from "./pipeline.ts";
import type { ActionWatch } from "./watch.ts";
import { listensToKeys } from "./widget.ts";
import { forgetMarks } from "../observe/collect.ts";

/** How long after typing a field with suggestions may take to show them (a typical debounce is 150-400 ms). */
const LATE_WIDGET_MS = 700;

export type TypeArgs = ArgsOf<typeof command> & { token: string };

/**
 * `bp type <ref> <text>`: focus the element unless it has focus (a checked click, else
 * script focus), optionally clear it (select all, Backspace), insert the text as one trusted
 * input (value controls such as date or range go through the native setter), read it back,
 * optionally press Enter. The steps are pinned to the page and focus they started on (see
 * CompositePin); a value the page rolls back is a mismatch.
 */
export const typeText = defineAction<typeof command, TypeArgs, TypeEvidence>(command, {
  // The token names this run's page-side slot; the prepare step rides on the ref's resolution.
  args: (a) => ({ ...a, token: crypto.randomUUID() }),
  observe: (a) => ({ limit: a.limit, full: a.full }),
  settled: true,
  evidence: (_run, sent) => sent,
  locate: (a) => ({ ref: a.ref, steps: [pageStep("edit", { op: "prepare", token: a.token })] }),
  async dispatch({ ctx, sel, args, top, watch, target }) {
    const resolved = locatedRef(target);
    const frame = frameOfRef(resolved);
    const token = args.token;
    let pin: CompositePin | undefined;
    let evidence: TypeEvidence | undefined;
    try {
      const prep = stepResult(resolved, 0, "edit", "prepare");
      if (!prep.ok && prep.reason === "detached") throw staleRef(args.ref, "node_detached");
      assertEditable(args.ref, prep);
      // Pin before focusing: a focus handler that navigates must be caught as a change.
      pin = await CompositePin.capture(ctx, sel, watch, top, frame, token, "type");
      const replace = args.clear || prep.mode === "setter";
      // Replacing text selects it all and inserts over the selection (as a person does, and as
      // fill does elsewhere): one input event and no Backspace. Only clearing to nothing deletes.
      const clearing = args.clear && prep.length > 0 && prep.mode !== "setter";
      const overSelection = clearing && args.text !== "";
      const steps = [...(clearing && !overSelection ? ["clear"] : []), ...(args.text !== "" || prep.mode === "setter" ? ["type"] : []), ...(args.submit ? ["submit"] : [])];
      if (!prep.focused) await focus(pin, top, watch, resolved, frame, token, steps);
      if (!replace && prep.length > 0) {
        // Append at the end, whatever the caret was; inputs without a selection API get End.
        // A dialog opening now blocks the page: the pin check of the fallback step names it.
        const caret = await Promise.race([callFn(frame, "edit", { op: "caretEnd", token }), watch.dialogOpened.then(() => ({ ok: false }))]);
        if (!caret.ok) await pin.step("caret", steps, () => pressCombo(top, parseCombo("End")), false);
      }
      const readBack = async () => {
        // Frameworks may roll a value back after the event: read once the page has settled, in
        // the settle call itself when the field is in the top document.
        const mode = replace ? "replace" : "append";
        const inTop = frame.frameId === watch.mainFrameId && frame.session === top;
        const read = inTop ? [readStep(token, args.text, mode)] : [];
        const after = await watch.settle(ctx.deadline, read, true);
        return inputEvidence("type", frame, token, prep, args.text, mode, watch.effects, after && readResult({ steps: read, results: after }, 0, "edit", "read"));
      };
      for (const [i, step] of steps.entries()) {
        const rest = steps.slice(i + 1);
        if (step === "clear") {
          await pin.step("clear", rest, async () => {
            await callInFrame(frame, "edit", { op: "select", token });
            await pressCombo(top, parseCombo("Backspace"));
          });
        } else if (step === "type") {
          // The selection is made in the step's own check call: no round trip of its own.
          const select = overSelection ? [pageStep("edit", { op: "select", token })] : [];
          await pin.step("type", rest, () => (prep.mode === "setter" ? callInFrame(frame, "edit", { op: "setValue", token, value: args.text }) : top.send("Input.insertText", { text: args.text })), true, select);
        } else {
          evidence = await readBack();
          await pin.step("submit", rest, () => pressCombo(top, parseCombo("Enter")));
          await watch.settle(ctx.deadline);
          evidence = { ...evidence, submitted: true, effects: mergeEffects(evidence.effects, watch) };
        }
      }
      evidence ??= await readBack();
      // Suggestions that come a few hundred ms after the last keystroke belong in this reply:
      // wait for them in a field that says it offers them, or in one whose page listens to the
      // keys but showed nothing yet (a page that already reacted is not waiting on a debounce).
      const quietSoFar = watch.effects.mutations === 0 && watch.effects.requests === 0;
      if (!args.submit && !watch.effects.navigation && !watch.effects.dialog && (prep.suggests === true || (quietSoFar && (await listensToKeys(frame))))) {
        if (await watch.lateChange(frame, LATE_WIDGET_MS, ctx.deadline)) {
          evidence = { ...evidence, effects: mergeEffects(evidence.effects, watch) };
          // Suggestion items are often bound by addEventListener only: list them with refs.
          forgetMarks(frame.session, frame.frameId);
        }
      }
    } finally {
      pin?.dispose();
    }
    return evidence;
  },
});

/**
 * Focuses the field the way a person does, with a click after the pointer probe: that also
 * gives the page focus, so focus handlers run now rather than at the first keystroke (script
 * focus in a background tab moves activeElement silently). A field the pointer cannot reach
 * (covered, off-screen) is focused by script instead.
 */
async function focus(pin: CompositePin, top: CdpSession, watch: ActionWatch, r: ResolvedRef, frame: FrameRef, token: string, steps: readonly string[]): Promise<void> {
  let probe: Probe | undefined;
  try {
    probe = await probeForPointer(r);
  } catch (err) {
    if (!(err instanceof BpError) || err.code !== "action_not_verified") throw err;
  }
  if (probe) {
    const { x, y, hidden } = probe;
    await pin.step("focus", [], () => dispatchClick(top, x, y, "left", 1, hidden), false);
  }
  // `focused` also re-pins the focused element, so it is asked once when the click worked.
  if (await focused(frame, token, watch)) return;
  // A focus handler may have replaced the page: that is a change before anything was typed.
  const reason = await pin.check();
  if (reason) throw pin.interrupted(steps[0] ?? "type", reason, steps.slice(1));
  await callInFrame(frame, "edit", { op: "focus", token });
  if (!(await focused(frame, token, watch))) {
    throw new BpError("action_not_verified", `Ref ${r.ref} did not take focus, so nothing was typed.`, {
      retryable: true,
      context: { ref: r.ref, reason: "not_focusable", dispatched: false, clicked: probe !== undefined },
      hint: "Click the field yourself ('bp click'), then use 'bp keyboard'.",
    });
  }
}

async function focused(frame: FrameRef, token: string, watch: ActionWatch): Promise<boolean> {
  // A dialog a focus handler opens blocks the page: not focused, and the pin check then says why.
  const r = await Promise.race([callFn(frame, "edit", { op: "pin", token }), watch.dialogOpened.then(() => ({ ok: false, focused: false }))]);
  return r.ok && r.focused === true;
}

/** Effects of the whole composite: the readback's plus what the later steps caused. */
export function mergeEffects(prior: readonly string[] | undefined, watch: ActionWatch): string[] {
  return [...new Set([...(prior ?? []), ...pageEffects(watch.effects)])];
}
