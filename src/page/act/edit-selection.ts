/**
 * The selection in a text target for the edit script (edit.ts): select all, caret to the end, the selection as a
 * string, and a selection made in the inserted text's own task (selectAtInput).
 */
import { composedContains, type ActElement, type ActSelection, type ActWindow } from "./dom.ts";

/**
 * What to do with a focused target's text at once: select it all (to replace it) or put the caret at its end (to
 * append); "selectAtInput": select it all as the text goes in (a form field's; anything else at once).
 */
export type Then = "select" | "selectAtInput" | "caretEnd";

/** What selectAtInput keeps on the action's slot (edit.ts). */
export interface AtInput {
  /** The target's own window, where the listener goes. */
  heard: ActWindow;
  /** Removes the listener, until it ran. */
  atInput?: (() => void) | undefined;
  /** The text the action inserts over that selection: only its own insertion gets it. */
  insert?: string | undefined;
}

function selectionOf(t: ActElement): ActSelection | null {
  const root = t.getRootNode ? t.getRootNode() : null;
  if (root && "getSelection" in root && typeof root.getSelection === "function") return root.getSelection();
  return t.ownerDocument.defaultView?.getSelection() ?? null;
}

export function selectAll(t: ActElement): boolean {
  if (formField(t)) {
    try {
      t.select?.();
      return true;
    } catch {
      return false;
    }
  }
  const sel = selectionOf(t);
  const r = t.ownerDocument.createRange();
  r.selectNodeContents(t);
  sel?.removeAllRanges();
  sel?.addRange(r);
  return true;
}

export function caretEnd(t: ActElement): boolean {
  if (formField(t)) {
    try {
      const n = String(t.value).length;
      t.setSelectionRange?.(n, n);
      return true;
    } catch {
      return false;
    }
  }
  const sel = t.ownerDocument.defaultView?.getSelection() ?? null;
  const r = t.ownerDocument.createRange();
  r.selectNodeContents(t);
  r.collapse(false);
  sel?.removeAllRanges();
  sel?.addRange(r);
  return true;
}

export function selection(win: ActWindow, t: ActElement | null): string {
  try {
    if (t && formField(t)) return `${String(t.selectionStart)}:${String(t.selectionEnd)}`;
  } catch {}
  try {
    const s = win.getSelection();
    return s ? `${s.rangeCount}:${String(s).length}` : "";
  } catch {
    return "";
  }
}

/** How long a selection left for the text's own task waits for it: the type action's steps before the text, with slack. */
const SELECT_AT_INPUT_MS = 2_000;

export function formField(t: ActElement): boolean {
  return t.localName === "input" || t.localName === "textarea";
}

/**
 * Selects a form field's text in the capture phase of the text's beforeinput, in the task that inserts the text (the
 * browser inserts over the selection as it is after that event). Selected at once, the highlight is drawn in a frame
 * of its own, and the frame after the text, which the settle waits for, comes a display tick later (~12 ms). Only in a
 * form field: a rich editor reads the range it will edit from the event (getTargetRanges), taken before its listeners
 * run. The first trusted beforeinput ends it, on whatever target; so do the next action's slot and time.
 */
export function selectAtInput(s: AtInput, t: ActElement, focused: () => boolean): boolean {
  dropAtInput(s);
  const until = Date.now() + SELECT_AT_INPUT_MS;
  const heard = s.heard;
  const listener = (e: { isTrusted?: boolean; target?: unknown; inputType?: unknown; data?: unknown }): void => {
    if (e.isTrusted === false) return;
    dropAtInput(s);
    // The action's own text only (a person's keys or a deletion are not): its data is the text, unless line breaks
    // may have been turned into an edit of their own.
    const want = s.insert;
    const ours =
      e.inputType === "insertText" &&
      (want === undefined || /[\r\n]/.test(want) || typeof e.data !== "string" || e.data === want);
    // At the window, a field in a shadow root is seen as its host: the text goes to the field while it has focus.
    const at = e.target as ActElement | null | undefined;
    if (ours && at && composedContains(at, t) && Date.now() <= until && focused()) selectAll(t);
  };
  heard.addEventListener("beforeinput", listener as never, { capture: true });
  s.atInput = () => heard.removeEventListener?.("beforeinput", listener as never, { capture: true });
  return true;
}

export function dropAtInput(s: AtInput): void {
  const drop = s.atInput;
  s.atInput = undefined;
  drop?.();
}
