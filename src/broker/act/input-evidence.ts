import type { PageStep } from "../../page/runtime.ts";
import type { KeyboardEvidence, TypeEvidence } from "../../protocol/evidence.ts";
import { BpError } from "../../shared/errors.ts";
import { exactly } from "../context/handler.ts";
import type { EvidenceStatus } from "./evidence.ts";
import { pageEffects } from "./evidence.ts";
import { callInFrame, type FrameRef } from "./frame-call.ts";
import type { Effects } from "./watch.ts";

/** What the page edit script's "prepare"/"active" reports about the element being edited. */
export interface Prepared {
  ok: boolean;
  reason?: "not_editable" | "detached" | "document_replaced";
  tag?: string;
  kind: "input" | "contenteditable" | "unsupported";
  mode: "text" | "setter" | "editable" | "none";
  sensitive: boolean;
  length: number;
  focused: boolean;
  disabled?: boolean;
  readOnly?: boolean;
  /** The field says it shows suggestions as one types (combobox, aria-autocomplete, list, …). */
  suggests?: true;
  selection?: string;
  control?: Record<string, unknown>;
}

type InputEvidenceArgs = [
  frame: FrameRef,
  token: string,
  prep: Prepared,
  text: string,
  mode: "replace" | "append" | "contains",
  effects: Effects,
  /** The read-back when it already ran (in the settle call); else it is read now. */
  read?: unknown,
];

interface ReadBack {
  ok: boolean;
  reason?: string;
  connected?: boolean;
  length?: number;
  expectedLength?: number;
  matched?: boolean;
  readable?: boolean;
}

/** Refuses targets that cannot take text before anything is sent. */
export function assertEditable(ref: number | undefined, p: Prepared): void {
  const what = ref !== undefined ? `Ref ${ref}` : "The focused element";
  const fail = (reason: string, message: string, hint: string) => {
    throw new BpError("action_not_verified", message, { retryable: true, context: { ...(ref !== undefined ? { ref } : {}), reason, dispatched: false }, hint });
  };
  if (!p.ok && p.reason === "not_editable") {
    fail("not_editable", `${what} (${p.tag ?? "element"}) does not take text; nothing was sent.`, "Pick a textbox from 'bp snapshot'; 'bp select' sets dropdowns; 'bp keyboard' types into whatever has focus (canvas editors).");
  }
  if (p.disabled) fail("disabled", `${what} is disabled; nothing was sent.`, "Wait until it is enabled, or pick another element.");
  if (p.readOnly) fail("read_only", `${what} is read-only; nothing was sent.`, "Pick an editable element.");
}

/** The page step that reads a typed value back (lengths and a match flag only). */
export function readStep(token: string, text: string, mode: "replace" | "append" | "contains"): PageStep {
  return { fn: "edit", arg: { op: "read", token, text, mode } };
}

/**
 * Reads the edited element back and turns it into typed evidence. The value itself never
 * leaves the page: only lengths and whether it matched. "replace": exactly the text;
 * "append": previous content plus the text; "contains": the text appears in it.
 */
export function inputEvidence(action: "type", ...rest: InputEvidenceArgs): Promise<TypeEvidence>;
export function inputEvidence(action: "keyboard", ...rest: InputEvidenceArgs): Promise<KeyboardEvidence>;
export async function inputEvidence(action: "type" | "keyboard", ...[frame, token, prep, text, mode, effects, read]: InputEvidenceArgs): Promise<TypeEvidence | KeyboardEvidence> {
  const base = (status: EvidenceStatus) => ({ action, status, kind: prep.kind, sensitive: prep.sensitive, beforeLength: prep.length });
  const fx = pageEffects(effects);
  const unavailable = (reason: string, expectedLength: number): TypeEvidence | KeyboardEvidence => ({ ...base("unavailable"), expectedLength, reason, effects: fx });
  const guess = mode === "replace" ? text.length : prep.length + text.length;
  if (effects.dialog) return unavailable("dialog_opened", guess);
  if (prep.mode === "none") return unavailable("active_element_not_readable", guess);
  const r = read !== undefined ? (read as ReadBack | null | undefined) : await callInFrame<ReadBack>(frame, "edit", { op: "read", token, text, mode }).catch(() => undefined);
  if (!r?.ok || r.connected === false) return unavailable(effects.navigation ? "navigation" : "target_unavailable", guess);
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
