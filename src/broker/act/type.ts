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
import { callInFrame, frameOfRef, locatedRef } from "./frame-call.ts";
import type { FrameWorld } from "../frame-world.ts";
import { assertEditable, inputEvidence, readEvidence, readStep, type Prepared } from "./input-evidence.ts";
import type { ReadMode } from "../../page/act/edit.ts";
import type { Then } from "../../page/act/edit-selection.ts";
import { parseCombo, pressCombo } from "./keys.ts";
import { CompositePin } from "./pin.ts";
import { checkProbe, dispatchClick, probeStep, reachFrame, type Probe, type Reach } from "./pointer.ts";
import { defineAction, type Steps } from "./pipeline.ts";
import { type Settler, SYNC_QUIET_MS } from "../settle/settler.ts";
import { focusedListensToKeys, listensToKeys } from "./widget.ts";
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
export const typeHandler = defineAction<typeof command, TypeArgs, Typed>(command, {
  // The token names this run's page-side slot; the prepare step rides on the ref's resolution.
  args: (a) => ({ ...nonEmpty(a), token: crypto.randomUUID() }),
  observe: (a) => ({ limit: a.limit, full: a.full }),
  typing: true,
  readback: ({ args }, sent) => (sent.plan ? [readStep(args.token, args.text, sent.plan.mode)] : []),
  evidence({ args, watch }, sent, readback) {
    if (sent.evidence) return sent.evidence;
    const { prep, mode } = sent.plan;
    const read = readback.results.length > 0 ? readResult(readback, 0, "edit", "read") : null;
    return readEvidence("type", prep, args.text, mode, watch.effects, read);
  },
  // Suggestions that come a few hundred ms after the last keystroke belong in this reply: wait
  // for them in a field that says it offers them, or in one whose page listens to the keys but
  // showed nothing yet (a page that already reacted is not waiting on a debounce).
  async after({ ctx, args, watch, target }, sent, evidence, readback) {
    if (args.submit || !sent.plan) return undefined;
    // Whether the field still had focus as the settle ended: the listener question then takes one round trip.
    const read = readback.results.length > 0 ? readResult(readback, 0, "edit", "read") : null;
    return lateSuggestions(
      ctx.deadline,
      watch,
      frameOfRef(locatedRef(target)),
      { prep: sent.plan.prep, top: true, focused: read?.ok === true && read.focused },
      evidence,
    );
  },
  // The locate call also prepares the field, selects its text or puts the caret at its end when
  // it has focus (`then`), probes it for the focusing click, and arms the quiet watcher: typing
  // into a focused field then costs the insert and the settle alone.
  // The pointer probe only for a field without focus: one that has it gets no click.
  locate: (a) => {
    const then = thenOf(a);
    return {
      ref: a.ref,
      steps: [
        // The text that a selection made at its insertion waits for (edit-selection.ts), compared in the page only.
        pageStep("edit", {
          op: "prepare",
          token: a.token,
          then,
          ...(then === "selectAtInput" ? { text: a.text } : {}),
        }),
        probeStep({}, { unlessFocused: true }),
      ],
    };
  },
  armQuiet: true,
  // With --submit the steps settle and read back before Enter and after it; otherwise the reply's one settle call (a
  // frame after the last change) reads the text back and takes the snapshot.
  async *steps({ ctx, sel, args, top, watch, target }) {
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
      // Replacing text selects it all and inserts over the selection (as a person does, and as
      // fill does elsewhere): one input event and no Backspace. Only clearing to nothing deletes.
      const clearing = args.clear && prep.length > 0 && prep.mode !== "setter";
      const overSelection = clearing && args.text !== "";
      const steps = [
        ...(clearing && !overSelection ? ["clear"] : []),
        ...(args.text !== "" || prep.mode === "setter" ? ["type"] : []),
        ...(args.submit ? ["submit"] : []),
      ];
      // Whether the field's text is selected (or its caret at the end) as the next step needs.
      let done = prep.then === true;
      // Whether the last page call proved the focus and nothing ran since: the first step then
      // checks only what the broker knows. The locate call found the field focused (no focus
      // handler ran since it pinned the page), or the call that proved a focusing click's focus
      // answered a task later (behind a timer, message or posted task a focus handler started: a
      // dialog it opens, focus it moves on), found the page had scheduled no timer, idle callback
      // or frame since the arm (else the first step checks again) and armed the quiet watcher
      // again after it, so what the focus changed is not taken for the page's answer to the
      // text. After script focus the first step's page check runs and arms the watcher again.
      let fresh = prep.focused;
      const inTop = frame.frameId === watch.mainFrameId && frame.session === top;
      let rearmed = false;
      if (!prep.focused) {
        const got = await focus(pin, top, watch, resolved, frame, token, steps, thenOf(args));
        done = got.then;
        rearmed = fresh = got.rearmed;
      }
      if (!replace && prep.length > 0 && !done) {
        // Append at the end, whatever the caret was; inputs without a selection API get End.
        // A dialog opening now blocks the page: the pin check of the fallback step names it.
        const caret = await Promise.race([
          callFn(frame, "edit", { op: "caretEnd", token }),
          watch.dialogOpened.then(() => ({ ok: false })),
        ]);
        if (!caret.ok) {
          await pin.step("caret", steps, () => pressCombo(top, parseCombo("End")), { mutates: false });
          // A key went to the page since the focus was proved: the next step checks it again.
          fresh = false;
        }
      }
      // Frameworks may roll a value back after the event: read once the page has settled.
      const mode = replace ? "replace" : "append";
      const readBack = async function* (): Steps<TypeEvidence> {
        // In the settle call itself when the field is in the top document.
        const read = inTop ? [readStep(token, args.text, mode)] : [];
        const after = yield { also: read, typing: true };
        return inputEvidence(
          "type",
          frame,
          token,
          prep,
          args.text,
          mode,
          watch.effects,
          after && readResult({ steps: read, results: after }, 0, "edit", "read"),
        );
      };
      for (const [i, step] of steps.entries()) {
        const rest = steps.slice(i + 1);
        const first = i === 0 && fresh;
        const rearm = i === 0 && !prep.focused && !rearmed ? watch.rearmSteps(frame) : [];
        if (step === "clear") {
          const selected = i === 0 && done;
          await pin.step(
            "clear",
            rest,
            async () => {
              if (!selected) await callInFrame(frame, "edit", { op: "select", token });
              await pressCombo(top, parseCombo("Backspace"));
            },
            { also: rearm, fresh: first, text: true },
          );
          if (rearm.length > 0) watch.retired();
        } else if (step === "type") {
          // The selection is made in the step's own check call (or was, in the call that proved the focus): no round trip of its own.
          const select =
            overSelection && !(i === 0 && done) ? [pageStep("edit", { op: "select", token, atInput: true })] : [];
          await pin.step(
            "type",
            rest,
            () =>
              prep.mode === "setter"
                ? callInFrame(frame, "edit", { op: "setValue", token, value: args.text })
                : top.send("Input.insertText", { text: args.text }),
            { also: [...select, ...rearm], fresh: first, text: true },
          );
          if (rearm.length > 0) watch.retired();
        } else {
          evidence = yield* readBack();
          await pin.step("submit", rest, () => pressCombo(top, parseCombo("Enter")));
          yield {};
          evidence = { ...evidence, submitted: true, effects: mergeEffects(evidence.effects, watch) };
        }
      }
      if (evidence) return { evidence };
      if (inTop) return { plan: { prep, mode } };
      // A field in a frame settles there (its own watcher) and is read there.
      const read = yield* readBack();
      return { evidence: (await lateSuggestions(ctx.deadline, watch, frame, { prep, top: false }, read)) ?? read };
    } finally {
      pin?.dispose();
    }
  },
});

/** What the dispatch leaves for the reply: the evidence when it settled itself (--submit), else what the read-back needs. */
type Typed =
  | { evidence: TypeEvidence; plan?: undefined }
  | { evidence?: undefined; plan: { prep: Prepared; mode: ReadMode } };

/**
 * Suggestions that come a few hundred ms after the last keystroke belong in this reply: waits
 * for them in a field that says it offers them, or in one whose page listens to the keys but
 * showed nothing yet (a page that already reacted is not waiting on a debounce). New evidence
 * when the page changed (the caller observes again); undefined when nothing came. `top`: the
 * field is in its session's top document, where the question takes two round trips, or one when
 * the field had focus as the settle ended (`focused`).
 *
 * The listener question is asked here, once the page showed nothing, not ahead beside the text:
 * its CDP work runs on the renderer's main thread, where it held up the text's input event and
 * then the reply's settle call (whose idle task waits for the main thread to have nothing else to
 * do) by 1-5 ms on a page that answered the text at once.
 */
async function lateSuggestions(
  deadline: number,
  watch: Settler,
  frame: FrameWorld,
  field: { prep: Prepared; top: boolean; focused?: boolean },
  evidence: TypeEvidence,
): Promise<TypeEvidence | undefined> {
  if (watch.effects.navigation || watch.effects.dialog) return undefined;
  const quietSoFar = watch.effects.mutations === 0 && watch.effects.requests === 0;
  const wait =
    field.prep.suggests === true ||
    (quietSoFar && (await Promise.race([listening(frame, field), watch.dialogOpened.then(() => false)])));
  if (!wait || watch.effects.dialog) return undefined;
  if (!(await watch.lateChange(frame, LATE_WIDGET_MS, deadline))) return undefined;
  // Suggestion items are often bound by addEventListener only: list them with refs.
  forgetMarks(frame.session, frame.frameId);
  return { ...evidence, effects: mergeEffects(evidence.effects, watch) };
}

/** The listener question: of the focused element when the field had it, else of the field itself. */
async function listening(frame: FrameWorld, field: { top: boolean; focused?: boolean }): Promise<boolean> {
  const focused = field.top && field.focused ? await focusedListensToKeys(frame.session) : undefined;
  return focused ?? listensToKeys(frame, field.top);
}

/** Whether the field's text is to be selected (replacing it) or the caret put at its end (appending). */
function thenOf(a: { clear?: boolean; text: string }): Then {
  // Text that replaces the field's: a form field's text is selected in the text's own input task (edit.ts).
  return a.clear ? (a.text !== "" ? "selectAtInput" : "select") : "caretEnd";
}

/**
 * Focuses the field the way a person does, with a click after the pointer probe (made in the
 * locate call): that also gives the page focus, so focus handlers run now rather than at the
 * first keystroke (script focus in a background tab moves activeElement silently). A field the
 * pointer cannot reach (covered, off-screen) is focused by script instead. The call that
 * proves the focus also re-pins it and does `then` (`then`: done); after the click it also arms
 * the quiet watcher again (`rearmed`).
 */
async function focus(
  pin: CompositePin,
  top: CdpSession,
  watch: Settler,
  r: ResolvedRef,
  frame: FrameWorld,
  token: string,
  steps: readonly string[],
  then: Then,
): Promise<{ then: boolean; rearmed: boolean }> {
  let probe: Probe | undefined,
    reach: Reach = "skipped";
  try {
    probe = checkProbe(r, stepResult(r, 1, "act", "probe"));
    reach = await reachFrame(top, watch.mainFrameId, r, probe, watch.dialogOpened);
  } catch (err) {
    probe = undefined;
    if (!(err instanceof BpError) || err.code !== "action_not_verified") throw err;
  }
  // A dialog the pointer's move opened: nothing was focused or typed.
  if (reach === "dialog") throw pin.interrupted("focus", "dialog_opened", steps);
  if (probe) {
    const { x, y, hidden } = probe;
    const there = reach === "moved";
    // The locate call that probed the field also pinned the page.
    await pin.step("focus", [], () => dispatchClick(top, x, y, "left", 1, hidden, there), {
      mutates: false,
      fresh: true,
    });
  }
  // `focused` also re-pins the focused element, so it is asked once when the click worked.
  const clicked = await focused(
    frame,
    token,
    watch,
    then,
    probe ? watch.rearmSteps(frame, { hold: SYNC_QUIET_MS }) : [],
  );
  // A page that scheduled work since the arm (a focus handler's timer or frame) keeps the first
  // step's page check, which arms the watcher once more: what that work changes is not the text's.
  if (clicked.focused) return { then: clicked.then, rearmed: probe !== undefined && !clicked.scheduled };
  // The field had the click's focus and the page moved it on (a focus handler, at once or on a
  // timer run before the hold ended): a change before anything was typed, not a field the
  // pointer could not focus.
  if (clicked.moved) throw moved(pin, steps);
  // A focus handler may have replaced the page: that is a change before anything was typed.
  const reason = await pin.check();
  if (reason) throw pin.interrupted(steps[0] ?? "type", reason, steps.slice(1));
  await callInFrame(frame, "edit", { op: "focus", token });
  // The same hold as the click's when the page scheduled work then: the script focus runs the
  // focus handlers again, and their timers end before the focus is proved.
  const scripted = await focused(
    frame,
    token,
    watch,
    then,
    probe && clicked.scheduled ? watch.rearmSteps(frame, { hold: SYNC_QUIET_MS }) : [],
  );
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
  return new BpError(
    e.code,
    `${e.message} The page moved focus from the field to another element when the field got it.`,
    {
      retryable: e.retryable,
      ...(e.context ? { context: e.context } : {}),
      hint: "Run 'bp snapshot' to see where focus went, then type there or use 'bp keyboard'.",
    },
  );
}

/**
 * Whether the field has focus, a task after the call arrives (re-pinning it and doing `then`).
 * That task runs behind what the focus and click handlers queued, a message or a posted task
 * included (the page's ledger cannot count those), so focus they move is seen; after a click it
 * comes only after the next rendered frame, and it stays for every page (answering at once when
 * the ledger showed nothing let such a move through; docs/architecture.md).
 * `rearm`: the quiet watcher's replacement (watch.rearmSteps), run after that task in the same
 * call; when it begins with a "hold", the call first waits the click's timer floor if the page
 * scheduled anything since the watcher was armed (`scheduled`: a focus handler that moves focus
 * on a short timer has moved it when the focus is proved; src/page/settle/settle.ts).
 */
async function focused(
  frame: FrameWorld,
  token: string,
  watch: Settler,
  then: Then,
  rearm: PageStep[] = [],
): Promise<{ focused: boolean; then: boolean; scheduled: boolean; moved?: boolean }> {
  const first = rearm[0];
  const held = first?.fn === "quiet" && first.arg !== undefined && "op" in first.arg && first.arg.op === "hold";
  // A dialog a focus handler opens blocks the page: not focused, and the pin check then says why.
  // A focus handler that replaced the document fails the call: not focused, and the pin check then says why.
  const pin = pageStep("edit", { op: "pin", token, then, after: "task" });
  const steps = held && first ? [first, pin, ...rearm.slice(1)] : [pin, ...rearm];
  const at = held ? 1 : 0;
  const pinned = callPage(frame.session, frame.frameId, steps)
    .then((reply) => {
      // No answer to read (no watcher left to count from): taken as scheduled.
      const h = held ? stepResult({ steps, results: reply.results }, 0, "quiet", "hold") : null;
      const scheduled = h === null || h.scheduled === true;
      return { ...stepResult({ steps, results: reply.results }, at, "edit", "pin"), scheduled };
    })
    .catch(() => ({ ok: false, focused: false, scheduled: true }) as const);
  const r = await Promise.race([
    pinned,
    watch.dialogOpened.then(() => ({ ok: false, focused: false, scheduled: true }) as const),
  ]);
  // The call answered: the watchers it replaced are gone (else stop() ends them).
  if (rearm.length > 0 && r.ok) watch.retired();
  return r.ok
    ? { focused: r.focused, then: r.then === true, scheduled: r.scheduled, moved: "moved" in r && r.moved === true }
    : { focused: false, then: false, scheduled: true };
}

/** Effects of the whole composite: the readback's plus what the later steps caused. */
export function mergeEffects(prior: readonly string[] | undefined, watch: Settler): string[] {
  return [...new Set([...(prior ?? []), ...pageEffects(watch.effects)])];
}

/**
 * No text, no --clear and no --submit (an empty argument, or nothing on stdin) would type
 * nothing and answer as if it had: refused before anything is sent.
 */
export function nonEmpty<A extends { text: string; clear?: boolean | undefined; submit?: boolean | undefined }>(
  a: A,
): A {
  if (a.text === "" && a.clear !== true && a.submit !== true) {
    throw invalidArgument(
      "text",
      "No text to type (an empty argument, or nothing on stdin); nothing was sent. Give the text as an argument or on stdin; --clear alone empties the field.",
    );
  }
  return a;
}
