import type { CdpSession } from "../../cdp/session.ts";
import { type as command } from "../../protocol/commands-actions.ts";
import type { TypeEvidence } from "../../protocol/evidence.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { ArgsOf } from "../context/handler.ts";
import { staleRef, type ResolvedRef } from "../observe/resolve-ref.ts";
import { pageEffects } from "./evidence.ts";
import { callFn, readResult, step as pageStep, stepResult } from "../page-fns.ts";
import { callPage } from "../world.ts";
import type { PageStep } from "../../page/runtime.ts";
import { callInFrame, frameOfRef, locatedRef, type FrameRef } from "./frame-call.ts";
import { assertEditable, inputEvidence, readEvidence, readStep, type Prepared } from "./input-evidence.ts";
import type { ReadMode } from "../../page/act-edit.ts";
import { parseCombo, pressCombo } from "./keys.ts";
import { CompositePin } from "./pin.ts";
import { checkProbe, dispatchClick, probeStep, type Probe } from "./pointer.ts";
import { defineAction } from "./pipeline.ts";
import { SYNC_QUIET_MS, type ActionWatch } from "./watch.ts";
import { listensToKeys } from "./widget.ts";
import { forgetMarks } from "../observe/collect.ts";

/** How long after typing a field with suggestions may take to show them (a typical debounce is 150-400 ms). */
const LATE_WIDGET_MS = 700;

export type TypeArgs = ArgsOf<typeof command> & { token: string };

/** `bp type <ref> <text>`: focus, optionally clear, insert as one trusted input, read back, optionally Enter. */
export const typeText = defineAction<typeof command, TypeArgs, Typed>(command, {
  args: (a) => ({ ...nonEmpty(a), token: crypto.randomUUID() }),
  observe: (a) => ({ limit: a.limit, full: a.full }),
  // With --submit the dispatch settled and read back itself; otherwise the reply's settle call reads the text back.
  settled: (_run, sent) => sent.evidence !== undefined,
  typing: true,
  readback: ({ args }, sent) => (sent.plan ? [readStep(args.token, args.text, sent.plan.mode)] : []),
  evidence({ args, watch }, sent, readback) {
    if (sent.evidence) return sent.evidence;
    const { prep, mode } = sent.plan;
    return readEvidence("type", prep, args.text, mode, watch.effects, readback.results.length > 0 ? readResult(readback, 0, "edit", "read") : null);
  },
  async after({ ctx, args, watch, target }, sent, evidence) {
    if (args.submit || !sent.plan) return undefined;
    return lateSuggestions(ctx.deadline, watch, frameOfRef(locatedRef(target)), true, sent.plan.prep, evidence);
  },
  // The locate call also prepares the field, probes it for the click and arms the quiet watcher, in one round trip.
  locate: (a) => ({ ref: a.ref, steps: [pageStep("edit", { op: "prepare", token: a.token, then: thenOf(a) }), probeStep({}, { unlessFocused: true })] }),
  armQuiet: true,
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
      // Pinned as the locate call found the page: a focus handler that navigates is caught as a change.
      pin = await CompositePin.prepared(ctx, sel, watch, top, frame, token, "type", prep.url);
      const replace = args.clear || prep.mode === "setter";
      // Replacing text selects it all and inserts over it (one input event, as a person does).
      const clearing = args.clear && prep.length > 0 && prep.mode !== "setter";
      const overSelection = clearing && args.text !== "";
      const steps = [...(clearing && !overSelection ? ["clear"] : []), ...(args.text !== "" || prep.mode === "setter" ? ["type"] : []), ...(args.submit ? ["submit"] : [])];
      let done = prep.then === true;
      // The last page call proved the focus and nothing ran since: the first step checks only what the broker knows.
      let fresh = prep.focused;
      const inTop = frame.frameId === watch.mainFrameId && frame.session === top;
      let rearmed = false;
      if (!prep.focused) {
        const got = await focus(pin, top, watch, resolved, frame, token, steps, thenOf(args));
        done = got.then;
        rearmed = fresh = got.rearmed;
      }
      if (!replace && prep.length > 0 && !done) {
        // Append at the end whatever the caret was; a dialog opening now is named by the fallback step's pin check.
        const caret = await Promise.race([callFn(frame, "edit", { op: "caretEnd", token }), watch.dialogOpened.then(() => ({ ok: false }))]);
        if (!caret.ok) {
          await pin.step("caret", steps, () => pressCombo(top, parseCombo("End")), { mutates: false });
          fresh = false;
        }
      }
      // Frameworks may roll a value back after the event: read once the page has settled.
      const mode = replace ? "replace" : "append";
      const readBack = async () => {
        const inTop = frame.frameId === watch.mainFrameId && frame.session === top;
        const read = inTop ? [readStep(token, args.text, mode)] : [];
        const after = await watch.settle(ctx.deadline, read, true);
        return inputEvidence("type", frame, token, prep, args.text, mode, watch.effects, after && readResult({ steps: read, results: after }, 0, "edit", "read"));
      };
      for (const [i, step] of steps.entries()) {
        const rest = steps.slice(i + 1);
        const first = i === 0 && fresh;
        const rearm = i === 0 && !prep.focused && !rearmed ? watch.rearmSteps(frame) : [];
        if (step === "clear") {
          const selected = i === 0 && done;
          await pin.step("clear", rest, async () => {
            if (!selected) await callInFrame(frame, "edit", { op: "select", token });
            await pressCombo(top, parseCombo("Backspace"));
          }, { also: rearm, fresh: first, text: true });
          if (rearm.length > 0) watch.retired();
        } else if (step === "type") {
          const select = overSelection && !(i === 0 && done) ? [pageStep("edit", { op: "select", token })] : [];
          await pin.step("type", rest, () => (prep.mode === "setter" ? callInFrame(frame, "edit", { op: "setValue", token, value: args.text }) : top.send("Input.insertText", { text: args.text })), { also: [...select, ...rearm], fresh: first, text: true });
          if (rearm.length > 0) watch.retired();
        } else {
          evidence = await readBack();
          await pin.step("submit", rest, () => pressCombo(top, parseCombo("Enter")));
          await watch.settle(ctx.deadline);
          evidence = { ...evidence, submitted: true, effects: mergeEffects(evidence.effects, watch) };
        }
      }
      if (evidence) return { evidence };
      if (inTop) return { plan: { prep, mode } };
      // A field in a frame settles there (its own watcher) and is read there.
      const read = await readBack();
      return { evidence: (await lateSuggestions(ctx.deadline, watch, frame, false, prep, read)) ?? read };
    } finally {
      pin?.dispose();
    }
  },
});

/** What the dispatch leaves for the reply: the evidence when it settled itself (--submit), else what the read-back needs. */
type Typed = { evidence: TypeEvidence; plan?: undefined } | { evidence?: undefined; plan: { prep: Prepared; mode: ReadMode } };

/** Waits for suggestions a debounce shows after the last keystroke; new evidence when the page changed. */
async function lateSuggestions(deadline: number, watch: ActionWatch, frame: FrameRef, top: boolean, prep: Prepared, evidence: TypeEvidence): Promise<TypeEvidence | undefined> {
  if (watch.effects.navigation || watch.effects.dialog) return undefined;
  const quietSoFar = watch.effects.mutations === 0 && watch.effects.requests === 0;
  const wait = prep.suggests === true || (quietSoFar && (await Promise.race([listensToKeys(frame, top), watch.dialogOpened.then(() => false)])));
  if (!wait || watch.effects.dialog) return undefined;
  if (!(await watch.lateChange(frame, LATE_WIDGET_MS, deadline))) return undefined;
  // Suggestion items are often bound by addEventListener only: list them with refs.
  forgetMarks(frame.session, frame.frameId);
  return { ...evidence, effects: mergeEffects(evidence.effects, watch) };
}

function thenOf(a: { clear?: boolean }): "select" | "caretEnd" {
  return a.clear ? "select" : "caretEnd";
}

/** Focuses with a click (focus handlers run now, not at the first keystroke), else by script. */
async function focus(pin: CompositePin, top: CdpSession, watch: ActionWatch, r: ResolvedRef, frame: FrameRef, token: string, steps: readonly string[], then: "select" | "caretEnd"): Promise<{ then: boolean; rearmed: boolean }> {
  let probe: Probe | undefined;
  try {
    probe = checkProbe(r, stepResult(r, 1, "act", "probe"));
  } catch (err) {
    if (!(err instanceof BpError) || err.code !== "action_not_verified") throw err;
  }
  if (probe) {
    const { x, y, hidden } = probe;
    await pin.step("focus", [], () => dispatchClick(top, x, y, "left", 1, hidden), { mutates: false, fresh: true });
  }
  const clicked = await focused(frame, token, watch, then, probe ? watch.rearmSteps(frame, { hold: SYNC_QUIET_MS }) : []);
  // A page that scheduled work since the arm keeps the first step's page check, which arms the watcher again.
  if (clicked.focused) return { then: clicked.then, rearmed: probe !== undefined && !clicked.scheduled };
  // The page moved focus on from the clicked field: a change before anything was typed.
  if (clicked.moved) throw moved(pin, steps);
  const reason = await pin.check();
  if (reason) throw pin.interrupted(steps[0] ?? "type", reason, steps.slice(1));
  await callInFrame(frame, "edit", { op: "focus", token });
  // The same hold as the click's when the page scheduled work then.
  const scripted = await focused(frame, token, watch, then, probe && clicked.scheduled ? watch.rearmSteps(frame, { hold: SYNC_QUIET_MS }) : []);
  if (scripted.moved) throw moved(pin, steps);
  if (!scripted.focused) {
    throw new BpError("action_not_verified", `Ref ${r.ref} did not take focus, so nothing was typed.`, {
      retryable: true,
      context: { ref: r.ref, reason: "not_focusable", dispatched: false, clicked: probe !== undefined },
      hint: "Click the field yourself ('bp click'), then use 'bp keyboard'.",
    });
  }
  return { then: scripted.then, rearmed: false };
}

/** The page moved focus from the field to another element: nothing typed, and a retry would meet the same handler. */
function moved(pin: CompositePin, steps: readonly string[]): BpError {
  const e = pin.interrupted(steps[0] ?? "type", "focus_changed", steps.slice(1));
  return new BpError(e.code, `${e.message} The page moved focus from the field to another element when the field got it.`, {
    retryable: e.retryable,
    ...(e.context ? { context: e.context } : {}),
    hint: "Run 'bp snapshot' to see where focus went, then type there or use 'bp keyboard'.",
  });
}

/**
 * Whether the field has focus a task after the call arrives (behind what the handlers queued), re-pinning it; `rearm`
 * runs after that task (act-settle.ts).
 */
async function focused(frame: FrameRef, token: string, watch: ActionWatch, then: "select" | "caretEnd", rearm: PageStep[] = []): Promise<{ focused: boolean; then: boolean; scheduled: boolean; moved?: boolean }> {
  const first = rearm[0];
  const held = first?.fn === "quiet" && first.arg !== undefined && "op" in first.arg && first.arg.op === "hold";
  const pin = pageStep("edit", { op: "pin", token, then, after: "task" });
  const steps = held ? [first, pin, ...rearm.slice(1)] : [pin, ...rearm];
  const at = held ? 1 : 0;
  const pinned = callPage(frame.session, frame.frameId, steps)
    .then((reply) => {
      // No answer to read (no watcher left to count from): taken as scheduled.
      const h = held ? stepResult({ steps, results: reply.results }, 0, "quiet", "hold") : null;
      const scheduled = h === null || h.scheduled === true;
      return { ...stepResult({ steps, results: reply.results }, at, "edit", "pin"), scheduled };
    })
    .catch(() => ({ ok: false, focused: false, scheduled: true }) as const);
  const r = await Promise.race([pinned, watch.dialogOpened.then(() => ({ ok: false, focused: false, scheduled: true }) as const)]);
  // The call answered: the watchers it replaced are gone (else stop() ends them).
  if (rearm.length > 0 && r.ok) watch.retired();
  return r.ok ? { focused: r.focused, then: r.then === true, scheduled: r.scheduled, moved: "moved" in r && r.moved === true } : { focused: false, then: false, scheduled: true };
}

export function mergeEffects(prior: readonly string[] | undefined, watch: ActionWatch): string[] {
  return [...new Set([...(prior ?? []), ...pageEffects(watch.effects)])];
}

/** Nothing to type, clear or submit: refused before anything is sent rather than answered as if typed. */
export function nonEmpty<A extends { text: string; clear?: boolean | undefined; submit?: boolean | undefined }>(a: A): A {
  if (a.text === "" && a.clear !== true && a.submit !== true) {
    throw invalidArgument("text", "No text to type (an empty argument, or nothing on stdin); nothing was sent. Give the text as an argument or on stdin; --clear alone empties the field.");
  }
  return a;
}
