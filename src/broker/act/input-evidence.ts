import type { ReadMode } from "../../page/act/edit.ts";
import type { KeyboardEvidence, TypeEvidence } from "../../protocol/evidence.ts";
import { BpError } from "../../shared/errors.ts";
import { exactly } from "../context/handler.ts";
import type { EvidenceStatus } from "./evidence.ts";
import { pageEffects } from "./evidence.ts";
import { step, type PageResult } from "../page-fns.ts";
import { callInFrame } from "./frame-call.ts";
import type { FrameWorld } from "../frame-world.ts";
import type { Effects } from "../settle/effects.ts";

export type Prepared = PageResult<"edit", { op: "active" }>;

/** "prepare" answers that, or why the ref takes no text. */
export type PrepareAnswer = PageResult<"edit", { op: "prepare" }>;

type InputEvidenceArgs = [
  frame: FrameWorld,
  token: string,
  prep: Prepared,
  text: string,
  mode: ReadMode,
  effects: Effects,
  /** The read-back when it already ran (in the settle call); else it is read now. */
  read?: PageResult<"edit", { op: "read" }> | null,
];

/** Refuses targets that cannot take text before anything is sent. */
export function assertEditable(ref: number | undefined, p: PrepareAnswer): asserts p is Prepared {
  const what = ref !== undefined ? `Ref ${ref}` : "The focused element";
  // The caller turned a detached element into stale_ref already.
  if (!p.ok) {
    refuse(
      ref,
      "not_editable",
      `${what} (${p.tag ?? "element"}) does not take text; nothing was sent.`,
      "Pick a textbox from 'bp snapshot'; 'bp select' sets dropdowns; 'bp keyboard' types into whatever has focus (canvas editors).",
    );
  }
  if (p.disabled)
    refuse(
      ref,
      "disabled",
      `${what} is disabled; nothing was sent.`,
      "Wait until it is enabled, or pick another element.",
    );
  if (p.readOnly) refuse(ref, "read_only", `${what} is read-only; nothing was sent.`, "Pick an editable element.");
}

function refuse(ref: number | undefined, reason: string, message: string, hint: string): never {
  throw new BpError("action_not_verified", message, {
    retryable: true,
    context: { ...(ref !== undefined ? { ref } : {}), reason, dispatched: false },
    hint,
  });
}

/** The page step that reads a typed value back (lengths and a match flag only). */
export function readStep(token: string, text: string, mode: ReadMode) {
  return step("edit", { op: "read", token, text, mode });
}

/**
 * Reads the edited element back into evidence; the value never leaves the page, only lengths and match ("replace":
 * exactly, "append": previous plus text, "contains": anywhere).
 */
export function inputEvidence(action: "type", ...rest: InputEvidenceArgs): Promise<TypeEvidence>;
export function inputEvidence(action: "keyboard", ...rest: InputEvidenceArgs): Promise<KeyboardEvidence>;
export async function inputEvidence(
  action: "type" | "keyboard",
  ...[frame, token, prep, text, mode, effects, read]: InputEvidenceArgs
): Promise<TypeEvidence | KeyboardEvidence> {
  const readable = !effects.dialog && prep.mode !== "none";
  const r =
    read !== undefined || !readable
      ? read
      : await callInFrame(frame, "edit", { op: "read", token, text, mode }).catch(() => undefined);
  return readEvidence(action, prep, text, mode, effects, r);
}

/** The evidence from a read-back that already ran (in the settle call); none: the field could not be read. */
export function readEvidence(
  action: "type",
  prep: Prepared,
  text: string,
  mode: ReadMode,
  effects: Effects,
  r: PageResult<"edit", { op: "read" }> | null | undefined,
): TypeEvidence;
export function readEvidence(
  action: "keyboard",
  prep: Prepared,
  text: string,
  mode: ReadMode,
  effects: Effects,
  r: PageResult<"edit", { op: "read" }> | null | undefined,
): KeyboardEvidence;
export function readEvidence(
  action: "type" | "keyboard",
  prep: Prepared,
  text: string,
  mode: ReadMode,
  effects: Effects,
  r: PageResult<"edit", { op: "read" }> | null | undefined,
): TypeEvidence | KeyboardEvidence;
export function readEvidence(
  action: "type" | "keyboard",
  prep: Prepared,
  text: string,
  mode: ReadMode,
  effects: Effects,
  r: PageResult<"edit", { op: "read" }> | null | undefined,
): TypeEvidence | KeyboardEvidence {
  const base = (status: EvidenceStatus) => ({
    action,
    status,
    kind: prep.kind,
    sensitive: prep.sensitive,
    beforeLength: prep.length,
  });
  const fx = pageEffects(effects);
  const unavailable = (reason: string, expectedLength: number): TypeEvidence | KeyboardEvidence => ({
    ...base("unavailable"),
    expectedLength,
    reason,
    effects: fx,
  });
  const guess = mode === "replace" ? text.length : prep.length + text.length;
  if (effects.dialog) return unavailable("dialog_opened", guess);
  if (prep.mode === "none") return unavailable("active_element_not_readable", guess);
  if (!r?.ok || r.connected === false)
    return unavailable(effects.navigation ? "navigation" : "target_unavailable", guess);
  const afterLength = r.length ?? 0;
  const effectsOut = afterLength !== prep.length ? ["value_changed", ...fx] : fx;
  const status: EvidenceStatus = r.matched ? "verified" : "mismatch";
  return exactly<TypeEvidence | KeyboardEvidence>()({
    ...base(status),
    expectedLength: r.expectedLength ?? guess,
    afterLength,
    ...(r.matched ? {} : { reason: "value_mismatch" }),
    effects: effectsOut,
  });
}
