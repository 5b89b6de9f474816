import type { CdpSession } from "../../cdp/session.ts";
import { dropdown as dropdownCommand, select as selectCommand } from "../../protocol/commands-actions.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { SelectEvidence } from "../../protocol/evidence.ts";
import { exactly, type ArgsOf, type ReplyOf } from "../context/handler.ts";
import type { CallContext } from "../context/types.ts";
import { staleRef, type ResolvedRef } from "../observe/resolve-ref.ts";
import { pageEffects, type EvidenceStatus } from "./evidence.ts";
import { readResult, step, stepResult, type PageResult } from "../page-fns.ts";
import { callInFrame, callOnSlot, frameOfRef, locatedRef } from "./frame-call.ts";
import type { FrameWorld } from "../frame-world.ts";
import { dispatchClick, probeForPointer } from "./pointer.ts";
import { defineAction, type Steps } from "./pipeline.ts";
import type { Settler } from "../settle/settler.ts";
import { cutString } from "../../shared/page-strings.ts";

type Listing = PageResult<"select", { op: "list" }>;
type Info = Extract<PageResult<"select", { op: "find" }>, { ok: true }>;
type Option = NonNullable<Info["option"]>;
type Readback = Extract<PageResult<"select", { op: "selected" }>, { ok: true }>;
type NotAControl = Exclude<PageResult<"select", { op: "selected" }>, { ok: true }>;
type Query = Pick<SelectArgs, "option" | "by" | "contains">;

const TARGET_SLOT = "browser-pilot.target.v1";

/** The found option set in the locate call (a native select's). */
const SET_FOUND = step("select", { op: "setFound" });

function listingError(ref: number, l: Extract<Listing, { ok: false }>): BpError {
  if (l.reason === "detached") return staleRef(ref, "node_detached");
  return invalidArgument("ref", `Ref ${ref} (${l.tag ?? "element"}) is not a select, listbox or combobox.`, {
    ref,
    reason: "not_a_dropdown",
  });
}

/** `bp dropdown <ref>`: the options of a native select or ARIA listbox, without changing anything. */
export const dropdownHandler = defineAction<typeof dropdownCommand, ArgsOf<typeof dropdownCommand>, Listing>(
  dropdownCommand,
  {
    watch: false,
    args: (a) => a,
    locate: (a) => ({ ref: a.ref, steps: [step("select", { op: "list" })] }),
    dispatch: async ({ target }) => stepResult(locatedRef(target), 0, "select", "list"),
    evidence({ args }, l) {
      const ref = args.ref;
      if (!l.ok) throw listingError(ref, l);
      const options = l.options ?? [];
      // Lean: not the ref given; the flags only when true; an option's value only when it is not its label.
      const out: ReplyOf<typeof dropdownCommand.result> = {
        kind: l.kind,
        ...(l.expanded ? { expanded: true as const } : {}),
        ...(l.multiple ? { multiple: true as const } : {}),
        ...(l.requiresOpen ? { requiresOpen: true as const } : {}),
        options: options.map((o) => ({
          index: o.index,
          label: o.label,
          ...(o.value !== o.label ? { value: o.value } : {}),
          ...(o.selected ? { selected: true as const } : {}),
          ...(o.disabled ? { disabled: true as const } : {}),
        })),
        ...(l.truncated === true ? { truncated: true as const } : {}),
      };
      if (l.requiresOpen)
        out.hint = `The list appears when opened: 'bp select ${ref} <option>' opens it for you, or 'bp click ${ref}' then 'bp dropdown ${ref}'.`;
      return out;
    },
  },
);

export type SelectArgs = ArgsOf<typeof selectCommand>;

/**
 * `bp select <ref> <option>`: a native select is set through the element (input and change events); an ARIA one is
 * opened with a checked click if needed and the option clicked after its own probe. Evidence reads the selection back.
 */
export const selectHandler = defineAction<typeof selectCommand, SelectArgs, Chosen>(selectCommand, {
  args: (a) => a,
  observe: (a) => ({ limit: a.limit, full: a.full }),
  // A native select's option is set in the call that finds it, behind the watcher armed there (none when it is not
  // native, is disabled or lacks the option: the checks below then refuse or open the ARIA list).
  locate: (a) => ({
    ref: a.ref,
    steps: [step("select", { op: "find", option: a.option, by: a.by, contains: a.contains })],
    input: [SET_FOUND],
  }),
  armQuiet: true,
  // A native select's selection is read again in the reply's settle call: a controlled one may come to the option
  // only after its change handler (its state through a reply or a timer).
  readback: (_run, sent) => (sent.finish ? [step("select", { op: "selected" })] : []),
  evidence: (_run, sent, readback) => sent.evidence ?? sent.finish(readResult(readback, 0, "select", "selected")),
  // The inputs are the setter call or the clicks, not the wait for an ARIA list's options. A native select settles in
  // the reply's one call with the snapshot; an ARIA one settles after each click.
  async *steps({ ctx, args, top, watch, target, locatedInput }) {
    // A dialog opened while the locate call was out: the page answers nothing more until it is closed. Of the page's
    // code only a native select's change handlers run in that call (any other control's call runs none of it), so
    // it is taken to be one; what is selected is read once the dialog is answered.
    if (locatedInput === "dialog")
      return {
        evidence: {
          action: "select",
          status: "unavailable",
          kind: "native",
          reason: "dialog_opened",
          effects: pageEffects(watch.effects),
        },
      };
    const early = locatedInput
      ? readResult({ steps: [SET_FOUND], results: locatedInput }, 0, "select", "setFound")
      : undefined;
    // The locate call set nothing (not a native select, disabled, no such option): no input went out.
    if (locatedInput && early?.ok !== true) watch.withdrawFirstInput();
    const resolved = locatedRef(target);
    const frame = frameOfRef(resolved);
    const query = { option: args.option, by: args.by, contains: args.contains };
    const found = stepResult(resolved, 0, "select", "find");
    if (!found.ok) throw listingError(args.ref, found);
    let info: Info = found;
    if (info.disabled)
      throw new BpError("action_not_verified", `Ref ${args.ref} is disabled; nothing was sent.`, {
        retryable: true,
        context: { ref: args.ref, reason: "disabled", dispatched: false },
      });
    const was = info.option ? info.option.selected : undefined;
    const done = (status: EvidenceStatus, reason: string | undefined, selected: string[]) =>
      exactly<SelectEvidence>()({
        action: "select",
        status,
        kind: info.kind,
        ...(info.option
          ? { option: { index: info.option.index, label: info.option.label, value: info.option.value } }
          : {}),
        selected,
        ...(reason ? { reason } : {}),
        effects: [...(status === "verified" && was === false ? ["value_changed"] : []), ...pageEffects(watch.effects)],
      });
    const current = async (): Promise<Readback | undefined> => {
      const r = await callInFrame(frame, "select", { op: "selected" }).catch(() => undefined);
      return r?.ok ? r : undefined;
    };
    const settled = (evidence: SelectEvidence): Chosen => ({ evidence });
    if (info.kind === "native") {
      if (!info.found || !info.option) throw await noSuchOption(frame, args);
      if (info.option.disabled) return settled(done("mismatch", "option_disabled", (await current())?.selected ?? []));
      let r: Readback | { ok: false; reason: string } | undefined;
      if (early?.ok) r = early;
      else {
        if (!watch.armed) await watch.armQuiet();
        const index = info.option.index;
        r = await race(
          watch,
          watch.input(() => callInFrame(frame, "select", { op: "setNative", index }), true),
        );
      }
      if (!r) return settled(done("unavailable", "dialog_opened", []));
      // Judged after the reply's settle, on its read-back when there is one (none after a navigation or a dialog):
      // not set means the option, or the native select, went since the find step.
      return {
        finish: (later) => {
          if (!r.ok) return done("mismatch", "option_not_found", []);
          // A select the page replaced since (a re-render, a swapped fragment) cannot be read again: the setter's reading stands.
          const now = later?.ok && later.target.connected ? later : r;
          return now.target.connected && now.target.selected === true
            ? done("verified", undefined, now.selected)
            : done("mismatch", "selection_mismatch", now.selected);
        },
      };
    }
    // A list already shown without the option: nothing is sent.
    if (!info.found && info.visible !== false && (await shownOptions(frame)) > 0) throw await noSuchOption(frame, args);
    if (!(info.found && info.option?.disabled)) info = yield* openAria(ctx, top, resolved, frame, info, watch, query);
    if (watch.effects.dialog) return settled(done("unavailable", "dialog_opened", []));
    if (!info.found || !info.option)
      return settled(done("mismatch", "option_not_found", (await current())?.selected ?? []));
    if (info.option.disabled) return settled(done("mismatch", "option_disabled", (await current())?.selected ?? []));
    const probe = await callOnSlot(frame, TARGET_SLOT, "act", { op: "probe", requireEnabled: true });
    if (!probe.ok) {
      throw new BpError(
        "action_not_verified",
        `Option "${cutString(info.option.label, 80)}" cannot take a click (${probe.reason ?? "unknown"}).`,
        {
          retryable: true,
          context: {
            ref: args.ref,
            reason: probe.reason,
            ...(probe.obstruction ? { obstruction: probe.obstruction } : {}),
          },
        },
      );
    }
    if (!watch.armed) await watch.armQuiet();
    await race(
      watch,
      watch.input(
        () => dispatchClick(top, probe.x + frame.offset.x, probe.y + frame.offset.y, "left", 1, probe.hidden),
        true,
      ),
    );
    yield {};
    return settled(
      watch.effects.dialog ? done("unavailable", "dialog_opened", []) : ariaVerdict(info.option, await current(), done),
    );
  },
});

const LISTED_OPTIONS = 20;

/** How many options the dropdown shows now (0: none, or they appear only when it is opened). */
async function shownOptions(frame: FrameWorld): Promise<number> {
  const l = await callInFrame(frame, "select", { op: "list" }).catch(() => undefined);
  return l?.ok && !l.requiresOpen ? (l.options ?? []).length : 0;
}

/** An option the dropdown does not have: refused with the ones it has (nothing was sent). */
async function noSuchOption(frame: FrameWorld, args: SelectArgs): Promise<BpError> {
  const l = await callInFrame(frame, "select", { op: "list" }).catch(() => undefined);
  const all = l?.ok ? (l.options ?? []) : [];
  const options = all.slice(0, LISTED_OPTIONS).map((o) => cutString(o.label, 60));
  const how =
    args.by === "value" ? "value" : args.by === "index" ? "index" : args.contains ? "label containing" : "label";
  return invalidArgument(
    "option",
    `Ref ${args.ref} has no option with ${how} "${cutString(String(args.option), 80)}"; nothing was sent.`,
    {
      ref: args.ref,
      reason: "option_not_found",
      options,
      ...(all.length > options.length || (l?.ok && "truncated" in l && l.truncated === true) ? { more: true } : {}),
    },
  );
}

type Chosen =
  | { evidence: SelectEvidence; finish?: undefined }
  | { evidence?: undefined; finish: (later: Readback | NotAControl | null | undefined) => SelectEvidence };

/** Opens an ARIA popup whose option is not shown (a checked click on the ref), then waits for the option to render. */
async function* openAria(
  ctx: CallContext,
  top: CdpSession,
  r: ResolvedRef,
  frame: FrameWorld,
  info: Info,
  watch: Settler,
  query: Query,
): Steps<Info> {
  if (info.found && info.visible) return info;
  const probe = await probeForPointer(r);
  if (!watch.armed) await watch.armQuiet();
  await race(
    watch,
    watch.input(() => dispatchClick(top, probe.x, probe.y, "left", 1, probe.hidden), true),
  );
  if (watch.effects.dialog) return { ...info, found: false };
  const maxMs = Math.max(200, Math.min(2_000, ctx.deadline - Date.now() - 500));
  const after = await race(watch, callInFrame(frame, "select", { op: "waitOption", maxMs, ...query }));
  yield {};
  return after?.ok ? after : { ...info, found: false };
}

function ariaVerdict(
  o: Option,
  r: Readback | undefined,
  done: (s: EvidenceStatus, reason: string | undefined, selected: string[]) => SelectEvidence,
): SelectEvidence {
  if (!r) return done("unavailable", "selection_not_exposed", []);
  const label = o.label.toLowerCase();
  const shown =
    r.selected.some((s) => s.toLowerCase() === label) ||
    (r.target.connected && r.target.selected === "true") ||
    (label !== "" && r.ownerText.toLowerCase().includes(label));
  if (shown) return done("verified", undefined, r.selected.length ? r.selected : [o.label]);
  if (r.target.connected && r.target.selected === "false") return done("mismatch", "selection_mismatch", r.selected);
  return done("unavailable", "selection_not_exposed", r.selected);
}

/** Sends one input; a dialog it opens ends the wait (the page is then blocked). Undefined when a dialog won. */
async function race<T>(watch: Settler, sent: Promise<T>): Promise<T | undefined> {
  sent.catch(() => undefined);
  return Promise.race([sent, watch.dialogOpened.then(() => undefined)]);
}
