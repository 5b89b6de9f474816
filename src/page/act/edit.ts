/**
 * Page-side pieces of text input (type, keyboard, press), run in our isolated world through
 * the page runtime (`edit`, an element step); `el` is the ref's element, or null to use what
 * has focus.
 *
 * A composite action keeps a slot on our world's window: the element it edits, the element
 * that had focus when it was pinned, and a random token. The world dies with its document,
 * so a missing slot means the document was replaced; a different focused element means focus
 * moved. Values never leave the page: reads return lengths and a match flag only.
 *
 * ops:
 *  - "prepare": find the editable target (the element, its label's control, or one editable
 *    descendant), classify it and store it; "focus" focuses it (after the page is pinned).
 *  - "active": the same for the element that has focus (keyboard, press).
 *  - "pin": remember the focused element; "check": is the slot and the focus unchanged?
 *  - "select": select all of the target's content; "caretEnd": caret to the end.
 *    "prepare" and "pin" do either right away (`then`) when the target has focus, so typing
 *    into a focused field needs no call of its own for it. "selectAtInput" selects a form
 *    field's text in the text's own input task instead (selectAtInput below).
 *  - "setValue": value controls (date, color, range…) through the native setter plus events.
 *  - "read": the target's length now and whether it holds what was expected.
 *  - "state": focus and control state of the focused element, for press effects.
 */
import { composedContains, deepFocus, setSlot, slotOf, type ActElement, type ActWindow } from "./dom.ts";
import { opOf } from "../ops.ts";
import { setterEdit } from "../settle/input.ts";
import {
  caretEnd,
  dropAtInput,
  formField,
  selectAll,
  selectAtInput,
  selection,
  type AtInput,
  type Then,
} from "./edit-selection.ts";

/** "pin"'s answer: `moved` when focus is on an element neither the target nor the one pinned before. */
type Pinned = { ok: true; focused: boolean; then?: true; moved?: true };

export interface EditArg {
  op?: string;
  token?: string;
  value?: string;
  text?: string;
  mode?: string;
}

interface Slot extends AtInput {
  token: string | undefined;
  target: ActElement | null;
  pinned: ActElement | null;
  before: string;
  /** The target had focus at some point since the locate call (seen by a capture focus listener). */
  hadFocus: boolean;
  /** That listener, removed when the next action's slot replaces this one. */
  onFocus: () => void;
  /** The window that listener is on (the target's own). */
  heard: ActWindow;
}

interface Kind {
  kind: "input" | "contenteditable" | "unsupported";
  mode: "text" | "setter" | "editable" | "none";
  sensitive?: boolean;
  singleLine?: boolean;
  trims?: boolean;
}

/** A control's own state (ARIA or native), compared before and after a key press. */
export interface ControlState {
  checked?: boolean | string;
  expanded?: string;
  selected?: string;
  pressed?: string;
  value?: string;
}

const KEY = Symbol.for("browser-pilot.edit.v1");
const TEXTY = /^(text|search|email|url|tel|password|number|)$/;
const VALUE_CONTROLS = /^(date|time|datetime-local|month|week|color|range)$/;

function deepActive(win: ActWindow): ActElement | null {
  return deepFocus(win).el;
}

function classify(t: ActElement | null): Kind {
  if (!t || t.nodeType !== 1) return { kind: "unsupported", mode: "none" };
  const tag = t.localName,
    type = String(t.type || "").toLowerCase();
  const ac = String((t.getAttribute && t.getAttribute("autocomplete")) || "").toLowerCase();
  const sensitive = (tag === "input" && type === "password") || /password|one-time-code/.test(ac);
  if (tag === "textarea") return { kind: "input", mode: "text", sensitive, singleLine: false };
  if (tag === "input" && TEXTY.test(type))
    return { kind: "input", mode: "text", sensitive, singleLine: true, trims: type === "email" || type === "url" };
  if (tag === "input" && VALUE_CONTROLS.test(type))
    return { kind: "input", mode: "setter", sensitive: false, singleLine: true };
  if (t.isContentEditable) return { kind: "contenteditable", mode: "editable", sensitive };
  return { kind: "unsupported", mode: "none", sensitive };
}

function editTarget(e: ActElement | null): ActElement | null {
  if (!e) return null;
  if (classify(e).mode !== "none") return e;
  try {
    if (e.localName === "label" && e.control && classify(e.control).mode !== "none") return e.control;
  } catch {}
  const found = e.querySelectorAll ? e.querySelectorAll("input, textarea, [contenteditable]") : [];
  for (let i = 0; i < found.length; i++) {
    const f = found[i] ?? null;
    if (classify(f).mode !== "none") return f;
  }
  return null;
}

function text(t: ActElement): string {
  return t.localName === "input" || t.localName === "textarea" ? String(t.value) : String(t.textContent || "");
}

function squash(s: string): string {
  return String(s).replace(/\s+/g, "");
}

function isFocused(win: ActWindow, t: ActElement): boolean {
  const a = deepActive(win);
  return !!a && (a === t || composedContains(t, a));
}

const SUGGESTION_ATTRS = ["aria-autocomplete", "aria-haspopup", "aria-controls", "aria-owns", "list"];

/** A combobox, a search field or suggestion attributes: typing may show a list a little later. */
function offersSuggestions(t: ActElement): boolean {
  const role = String(t.getAttribute("role") ?? "").toLowerCase();
  if (role === "combobox" || (t.localName === "input" && String(t.type ?? "").toLowerCase() === "search")) return true;
  return SUGGESTION_ATTRS.some((name) => {
    const v = t.getAttribute(name);
    return v !== null && v !== "" && v.toLowerCase() !== "false" && v.toLowerCase() !== "none";
  });
}

function describe(win: ActWindow, t: ActElement | null, c: Kind) {
  const out: {
    kind: Kind["kind"];
    mode: Kind["mode"];
    sensitive: boolean;
    length: number;
    focused: boolean;
    disabled?: boolean;
    readOnly?: boolean;
    tag?: string;
    suggests?: true;
  } = {
    kind: c.kind,
    mode: c.mode,
    sensitive: !!c.sensitive,
    length: t && c.mode !== "none" ? text(t).length : 0,
    focused: !!t && isFocused(win, t),
  };
  if (t) {
    try {
      out.disabled =
        t.disabled === true ||
        t.getAttribute("aria-disabled") === "true" ||
        !!(t.closest && t.closest("[inert], fieldset[disabled]"));
      out.readOnly = t.readOnly === true || t.getAttribute("aria-readonly") === "true";
      out.tag = String(t.localName).slice(0, 40);
      if (offersSuggestions(t)) out.suggests = true;
    } catch {}
  }
  return out;
}

function controlState(t: ActElement | null): ControlState {
  const s: ControlState = {};
  if (!t || t.nodeType !== 1) return s;
  try {
    const checked = t.getAttribute("aria-checked"),
      expanded = t.getAttribute("aria-expanded");
    const selected = t.getAttribute("aria-selected"),
      pressed = t.getAttribute("aria-pressed");
    if (t.localName === "input" && (t.type === "checkbox" || t.type === "radio")) s.checked = !!t.checked;
    else if (checked !== null) s.checked = checked;
    if (expanded !== null) s.expanded = expanded;
    if (selected !== null) s.selected = selected;
    if (pressed !== null) s.pressed = pressed;
    if (t.localName === "select") s.value = String(t.value).slice(0, 200);
  } catch {}
  return s;
}

/** The native `value` setter, so frameworks that track the property see the change. */
function setNativeValue(t: ActElement, value: unknown): void {
  let desc: PropertyDescriptor | undefined;
  for (
    let p: object | null = Object.getPrototypeOf(t) as object | null;
    p && !desc;
    p = Object.getPrototypeOf(p) as object | null
  )
    desc = Object.getOwnPropertyDescriptor(p, "value");
  if (desc && desc.set) desc.set.call(t, value);
  else t.value = String(value);
}

/** The element the current composite action edits (its slot's target), for CDP calls on the node. */
export function editedElement(win: ActWindow): ActElement | null {
  return slotOf<Slot>(win, KEY)?.target ?? null;
}

/** `url`: the target's document (a composite's pin compares later navigations with it). */
type Prepare = ReturnType<typeof describe> & {
  ok: true;
  selection: string;
  control: ControlState;
  url: string;
  then?: boolean;
};

/** Keeps the target in this action's slot (with what had focus and the text before) and describes it. */
function keep(win: ActWindow, t: ActElement | null, active: ActElement | null, token: string | undefined): Prepare {
  const c = classify(t);
  const prior = slotOf<Slot>(win, KEY);
  if (prior) {
    prior.heard.removeEventListener?.("focus", prior.onFocus, { capture: true });
    dropAtInput(prior);
  }
  // The target's own window: a field in a same-origin frame is kept in the top document's slot,
  // and its focus event does not reach the top window.
  const heard = (t && t.ownerDocument && t.ownerDocument.defaultView) || win;
  const slot: Slot = {
    token,
    target: t,
    pinned: active,
    before: t && c.mode !== "none" ? text(t) : "",
    hadFocus: false,
    onFocus: () => {},
    heard,
  };
  // Whether the target got focus after the click, even when a focus handler moved it on at
  // once: focus that left the target is the page's move, not a field the pointer cannot focus.
  // The capture phase on the window runs before the page's own handlers on the target.
  slot.onFocus = () => {
    if (t && isFocused(win, t)) slot.hadFocus = true;
  };
  heard.addEventListener("focus", slot.onFocus, { capture: true });
  setSlot(win, KEY, slot);
  return {
    ...describe(win, t, c),
    ok: true,
    selection: selection(win, t),
    control: controlState(t),
    url: String(win.document.URL),
  };
}

interface Tokened {
  token?: string;
}

/** Runs `then` on a focused text target; undefined when there was nothing to do or it could not be done. */
function doThen(win: ActWindow, s: Slot, t: ActElement | null, then: Then | undefined): true | undefined {
  if (!then || !t || !isFocused(win, t)) return undefined;
  const c = classify(t);
  if (c.mode !== "text" && c.mode !== "editable") return undefined;
  if (then === "selectAtInput")
    return (formField(t) ? selectAtInput(s, t, () => isFocused(win, t)) : selectAll(t)) || undefined;
  return (then === "select" ? selectAll(t) : caretEnd(t)) || undefined;
}

/** How long the focus proof waits for the page's background-priority tasks after its own task (a frame). */
const BACKGROUND_MS = 16;

/** A child frame's document that lost focus to another frame (its body is then what it calls focused). */
function frameLeft(win: ActWindow): boolean {
  try {
    return win.parent !== undefined && win.parent !== win && win.document.hasFocus?.() === false;
  } catch {
    return false;
  }
}

/** The slot of this composite action (by its token), or null when the document was replaced since. */
function slotFor(win: ActWindow, token: string | undefined): Slot | null {
  const found = slotOf<Slot>(win, KEY);
  return found && found.token === token ? found : null;
}

/** An op on the slot's target: a document without this action's slot answers document_replaced. */
function slotted<A extends Tokened, R>(fn: (win: ActWindow, s: Slot, tg: ActElement | null, arg: A) => R) {
  return (win: ActWindow, _el: ActElement | null, arg: A): R | { ok: false; reason: "document_replaced" } => {
    const s = slotFor(win, arg.token);
    return s ? fn(win, s, s.target, arg) : { ok: false, reason: "document_replaced" };
  };
}

export type ReadMode = "replace" | "append" | "contains";

/** The edit script's ops (the step's `op`). */
export const EDIT_OPS = {
  prepare: (
    win: ActWindow,
    el: ActElement | null,
    arg: Tokened & { then?: Then; text?: string },
  ): Prepare | { ok: false; reason: "not_editable" | "detached"; tag: string } => {
    const active = deepActive(win);
    const t = editTarget(el);
    if (!t)
      return {
        ok: false,
        reason: el && el.isConnected ? "not_editable" : "detached",
        tag: el ? String(el.localName) : "",
      };
    const out = keep(win, t, active, arg.token);
    const s = slotFor(win, arg.token);
    if (s && typeof arg.text === "string") s.insert = arg.text;
    // Described before: the selection and length are what the agent's field held.
    if (out.length > 0 && s && doThen(win, s, t, arg.then)) out.then = true;
    return out;
  },
  /** The same for what has focus (keyboard, press): no refusal, the focused element (or none) is described. */
  active: (win: ActWindow, _el: ActElement | null, arg: Tokened): Prepare => {
    const active = deepActive(win);
    return keep(win, active, active, arg.token);
  },
  focus: slotted((win, _s, tg) => {
    if (tg && !isFocused(win, tg)) {
      try {
        tg.focus();
      } catch {}
    }
    return { ok: true as const, focused: !!tg && isFocused(win, tg) };
  }),
  pin: slotted((win, s, tg, arg: Tokened & { then?: Then; after?: "task" }): Pinned | Promise<Pinned> => {
    const answer = (): Pinned => {
      s.pinned = deepActive(win);
      const focused = !!tg && isFocused(win, tg);
      // The target had focus and it is now on another element (the one focused before the
      // click too), or in another frame (the top page took it back): the page moved it. A
      // target that never had focus is not moved, nor one whose focus went to its own body.
      if (
        !focused &&
        s.hadFocus &&
        ((s.pinned !== null && s.pinned !== win.document.body && s.pinned !== s.heard.document.body) ||
          frameLeft(s.heard))
      )
        return { ok: true, focused, moved: true };
      return focused && tg && text(tg).length > 0 && doThen(win, s, tg, arg.then)
        ? { ok: true, focused, then: true }
        : { ok: true, focused };
    };
    // After a focusing click: answer a task later, behind a timer a focus handler started and
    // behind a message or posted task it queued (a MessageChannel, postMessage,
    // scheduler.postTask: nothing the page's scheduling ledger can count), so a dialog it opens
    // or focus it moves shows itself before any text is sent. Always, even when the ledger shows
    // nothing: after a click Chromium runs a task only after its next rendered frame, and so
    // does the page's queued message; answering at once missed it (text typed into the field
    // focus moved to, or "verified" with focus elsewhere).
    if (arg.after !== "task") return answer();
    // A background-priority task the page posted runs after every other task: one of ours posted
    // now runs after it (same queue), so the answer waits for it too, at most BACKGROUND_MS after
    // the timer (a busy page may starve that queue).
    const post = win.scheduler?.postTask;
    let behind = post ? false : true;
    let wake: (() => void) | null = null;
    if (post) {
      void post
        .call(
          win.scheduler,
          () => {
            behind = true;
            wake?.();
          },
          { priority: "background" },
        )
        .catch(() => {
          behind = true;
          wake?.();
        });
    }
    return new Promise((resolve) => {
      win.setTimeout(() => {
        if (behind) return resolve(answer());
        const cap = win.setTimeout(() => {
          wake = null;
          resolve(answer());
        }, BACKGROUND_MS);
        wake = () => {
          wake = null;
          win.clearTimeout(cap);
          resolve(answer());
        };
      }, 0);
    });
  }),
  check: slotted((win, s, tg): { ok: true } | { ok: false; reason: "target_detached" | "focus_changed" } => {
    if (!tg || (tg !== s.pinned && !tg.isConnected)) return { ok: false, reason: "target_detached" };
    return deepActive(win) === s.pinned ? { ok: true } : { ok: false, reason: "focus_changed" };
  }),
  select: slotted((win, s, tg, arg: Tokened & { atInput?: boolean }) => ({
    ok:
      !!tg && (arg.atInput === true && formField(tg) ? selectAtInput(s, tg, () => isFocused(win, tg)) : selectAll(tg)),
  })),
  caretEnd: slotted((_win, _s, tg) => ({ ok: !!tg && caretEnd(tg) })),
  setValue: slotted(
    (win, _s, tg, arg: Tokened & { value: string }): { ok: true } | { ok: false; reason: "target_detached" } => {
      if (!tg) return { ok: false, reason: "target_detached" };
      // Read the frame counter and ask for the frame after the edit before the page's handlers run (settle/input.ts).
      setterEdit(win);
      setNativeValue(tg, arg.value);
      tg.dispatchEvent(new win.Event("input", { bubbles: true, composed: true }));
      tg.dispatchEvent(new win.Event("change", { bubbles: true }));
      return { ok: true };
    },
  ),
  read: slotted((win, s, tg, arg: Tokened & { text: string; mode: ReadMode }) => {
    // A selection left for a text that never came does not wait for the next one.
    dropAtInput(s);
    // "replace": exactly the text; "append": what was there before plus the text; "contains".
    const cls = classify(tg),
      now = tg && cls.mode !== "none" ? text(tg) : "";
    let want = arg.mode === "append" ? s.before + String(arg.text) : String(arg.text);
    if (cls.singleLine) want = want.replace(/[\r\n]/g, "");
    if (cls.trims) want = want.trim();
    let matched: boolean;
    if (cls.mode === "editable")
      matched = arg.mode === "contains" ? squash(now).indexOf(squash(want)) >= 0 : squash(now) === squash(want);
    else matched = arg.mode === "contains" ? now.indexOf(want) >= 0 : now === want;
    return {
      ok: true as const,
      connected: !!tg && tg.isConnected,
      length: now.length,
      expectedLength: arg.mode === "contains" ? s.before.length + want.length : want.length,
      matched,
      readable: cls.mode !== "none",
      focused: !!tg && isFocused(win, tg),
    };
  }),
  state: slotted((win, s, tg) => {
    const now = deepActive(win);
    return {
      ok: true as const,
      sameFocus: now === s.pinned,
      length: tg && classify(tg).mode !== "none" ? text(tg).length : 0,
      selection: selection(win, tg),
      control: controlState(tg),
      focusControl: controlState(now),
    };
  }),
};

export function pageEdit(win: ActWindow, el: ActElement | null, arg: EditArg): unknown {
  const op = opOf(EDIT_OPS, arg);
  if (op) return op(win, el, arg);
  return slotFor(win, arg.token) ? { ok: false, reason: "unknown_op" } : { ok: false, reason: "document_replaced" };
}
