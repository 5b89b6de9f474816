import type { ElementState } from "./pointer.ts";
import type { Effects } from "../settle/effects.ts";

export type EvidenceStatus = "verified" | "mismatch" | "unavailable";

/** Effects an agent can branch on, from element state before/after and page-level events. */
export function stateEffects(before: ElementState | undefined, after: ElementState | undefined): string[] {
  if (!before || !after) return [];
  const out: string[] = [];
  if (before.checked !== after.checked) out.push("checked_changed");
  if (before.selected !== after.selected) out.push("selected_changed");
  if (before.pressed !== after.pressed) out.push("pressed_changed");
  if (before.expanded !== after.expanded) out.push("expanded_changed");
  if (before.value !== after.value || before.valueLength !== after.valueLength) out.push("value_changed");
  if (before.focused !== after.focused) out.push("focus_changed");
  return out;
}

export function pageEffects(e: Effects): string[] {
  const out: string[] = [];
  if (e.navigation) out.push("navigation");
  else if (e.urlChanged) out.push("url_changed");
  if (e.dialog) out.push("dialog_opened");
  if (e.popups.length > 0) out.push("popup_opened");
  if (e.downloads.length > 0) out.push("download_started");
  if (e.downloadsCompleted > 0) out.push("download_completed");
  if (e.requests > 0) out.push("network_requests");
  if (e.mutations > 0) out.push("dom_changed");
  return out;
}

/**
 * A toggle that did not change is a mismatch; any observable effect verifies a click; no effect leaves it unavailable.
 */
export function clickStatus(kind: string | undefined, effects: string[]): { status: EvidenceStatus; reason?: string } {
  const toggles = kind === "checkbox" || kind === "radio" || kind === "switch" || kind === "option";
  if (
    toggles &&
    !effects.some(
      (e) => e === "checked_changed" || e === "selected_changed" || e === "pressed_changed" || e === "navigation",
    )
  ) {
    return { status: "mismatch", reason: "expected_state_unchanged" };
  }
  if (effects.length > 0) return { status: "verified" };
  return { status: "unavailable", reason: "no_observable_effect" };
}

/** Actions with no expected state (press, hover, drag): any effect verifies, none leaves it unavailable. */
export function evidenceStatus(effects: string[]): { status: EvidenceStatus; reason?: string } {
  return effects.length > 0 ? { status: "verified" } : { status: "unavailable", reason: "no_observable_effect" };
}
