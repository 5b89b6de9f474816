/**
 * Page-side checks for actions (the page runtime's `act`, an element step).
 *
 * ops:
 *  - "probe": scroll into view (unless arg.noScroll, or it is wholly in view and reachable already), then prove
 *    the element can take a pointer event: laid out, visible, enabled, and the topmost element at sampled points
 *    (else name the obstruction).
 *  - "state": the observable state an action may change (checked, value length, focus, …).
 *  - "hovered": whether the element is under the pointer now.
 *  - "reached": whether the pointer came into the element's document, asked again after its next frame when not yet.
 */
import { composedContains, type ActDocument, type ActElement, type ActWindow } from "./dom.ts";
import { inputClock, readClock, type Received } from "../settle/input.ts";
import { closedPopup } from "./popup.ts";
import { opOf } from "../ops.ts";
import { ownFrame } from "../settle/frames.ts";

export interface ActArg {
  op?: string;
  /** "received": which input's receipt to check. */
  input?: ReceivedInput;
  noScroll?: boolean;
  requireEnabled?: boolean;
}

export interface Described {
  tagName: string;
  id?: string;
  role?: string;
  name?: string;
}

/** The observable state an action may change; the broker compares it before and after (ElementState there). */
export interface State {
  connected: boolean;
  checked?: boolean | string;
  selected?: boolean | string;
  pressed?: string;
  expanded?: string;
  /** It (or an ancestor close above) says it opens a popup that is not shown (popup.ts): a closed submenu's item. */
  popup?: true;
  value?: string;
  valueLength?: number;
  focused?: boolean;
  kind?: string;
}

function describe(n: ActElement | null): Described | null {
  return n && n.nodeType === 1 ? described(n) : null;
}

function described(n: ActElement): Described {
  const out: Described = { tagName: String(n.localName || "").slice(0, 40) };
  try {
    const id = n.getAttribute("id");
    if (id) out.id = String(id).slice(0, 80);
    const role = n.getAttribute("role");
    if (role) out.role = String(role).slice(0, 40);
    const label = String(
      n.getAttribute("aria-label") || n.getAttribute("title") || n.getAttribute("alt") || n.textContent || "",
    )
      .replace(/\s+/g, " ")
      .trim();
    if (label) out.name = label.slice(0, 80);
  } catch {}
  return out;
}

function labelsOf(n: ActElement): ArrayLike<ActElement> {
  try {
    if (n.labels && n.labels.length) return n.labels;
  } catch {}
  return [];
}

/** A hit on the element, inside it, or on one of its labels counts as reaching it. */
function accepts(el: ActElement, hit: ActElement | null): boolean {
  if (!hit) return false;
  if (composedContains(el, hit)) return true;
  const labels = labelsOf(el);
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i];
    if (l && composedContains(l, hit)) return true;
  }
  return el.localName === "label" && !!el.control && composedContains(el.control, hit);
}

function hitAt(el: ActElement, doc: ActDocument, x: number, y: number): ActElement | null {
  const root = el.getRootNode ? el.getRootNode() : doc;
  let hit = root && root.elementFromPoint ? root.elementFromPoint(x, y) : el.ownerDocument.elementFromPoint(x, y);
  // Descend through open shadow roots the way the browser's hit test does.
  for (let i = 0; hit && hit.shadowRoot && i < 32; i++) {
    const inner = hit.shadowRoot.elementFromPoint?.(x, y) ?? null;
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit ?? null;
}

function frameOffset(d: ActDocument): { x: number; y: number } {
  let x = 0,
    y = 0;
  try {
    for (let w = d.defaultView, i = 0; w && w.frameElement && i < 32; w = w.parent ?? null, i++) {
      const fe = w.frameElement,
        r = fe.getBoundingClientRect();
      x += r.left + fe.clientLeft;
      y += r.top + fe.clientTop;
    }
  } catch {}
  return { x, y };
}

function deepActive(a: ActElement | null | undefined): ActElement | null | undefined {
  for (let i = 0; a && a.shadowRoot && a.shadowRoot.activeElement && i < 32; i++) a = a.shadowRoot.activeElement;
  return a;
}

function state(target: ActElement): State {
  const s: State = { connected: !!target.isConnected };
  // A label standing in for a visually hidden control reports the control's state.
  let el = target;
  try {
    if (el.localName === "label" && el.control) el = el.control;
  } catch {}
  try {
    const tag = el.localName,
      type = String(el.type || "").toLowerCase();
    const ariaChecked = el.getAttribute("aria-checked"),
      ariaSelected = el.getAttribute("aria-selected");
    const pressed = el.getAttribute("aria-pressed"),
      expanded = el.getAttribute("aria-expanded");
    if (tag === "input" && (type === "checkbox" || type === "radio"))
      s.checked = el.indeterminate ? "mixed" : !!el.checked;
    else if (ariaChecked !== null) s.checked = ariaChecked;
    if (tag === "option") s.selected = !!el.selected;
    else if (ariaSelected !== null) s.selected = ariaSelected;
    if (pressed !== null) s.pressed = pressed;
    if (expanded !== null) s.expanded = expanded;
    // Of the element hovered itself (not a label's control): a label hover opens no popup of its control.
    if (closedPopup(target)) s.popup = true;
    if (tag === "select") s.value = String(el.value);
    else if ((tag === "input" || tag === "textarea") && typeof el.value === "string") s.valueLength = el.value.length;
    const a = deepActive(el.ownerDocument.activeElement);
    s.focused = a === el || composedContains(el, a);
    s.kind =
      tag === "input" && (type === "checkbox" || type === "radio")
        ? type
        : el.getAttribute("role") === "switch"
          ? "switch"
          : tag === "option"
            ? "option"
            : tag === "select"
              ? "select"
              : /^(button|a|input|textarea|summary)$/.test(tag)
                ? "control"
                : "other";
  } catch {}
  return s;
}

function disabledOf(el: ActElement): boolean {
  try {
    if (el.disabled === true || el.getAttribute("aria-disabled") === "true" || (el.closest && el.closest("[inert]")))
      return true;
    return !!(el.closest && el.closest("fieldset[disabled]"));
  } catch {
    return false;
  }
}

/** The probe's answer when the element can take the pointer event: the point, in the frame's viewport px. */
export interface ProbeHit {
  ok: true;
  x: number;
  y: number;
  state: State;
  target: Described;
  /** The tab is in the background (document hidden): it renders no frames. */
  hidden: boolean;
}

/** Why it cannot (and, when covered, by what). */
export interface ProbeMiss {
  ok: false;
  reason: "detached" | "not_visible" | "disabled" | "outside_viewport" | "no_layout" | "obscured";
  obstruction?: Described | null;
  /** How many controls the covering element holds (0: nothing to close or answer it with). */
  obstructionControls?: number;
}

/** Where a pointer event reaches the element now: a point of its largest box in the viewport, or why none does. */
function reach(
  win: ActWindow,
  el: ActElement,
  view: ActWindow,
): { point: [number, number]; inside: boolean } | ProbeMiss {
  const rects = el.getClientRects();
  const vw = view.innerWidth,
    vh = view.innerHeight;
  let best: { l: number; t: number; r: number; b: number } | null = null,
    area = 0,
    inside = rects.length > 0;
  for (let i = 0; i < rects.length; i++) {
    const r = rects[i];
    if (!r) continue;
    if (r.left < 0 || r.top < 0 || r.right > vw || r.bottom > vh) inside = false;
    const l = Math.max(0, r.left),
      t = Math.max(0, r.top),
      rr = Math.min(vw, r.right),
      b = Math.min(vh, r.bottom);
    if (rr - l > 0 && b - t > 0 && (rr - l) * (b - t) > area) {
      area = (rr - l) * (b - t);
      best = { l, t, r: rr, b };
    }
  }
  if (!best) return { ok: false, reason: rects.length ? "outside_viewport" : "no_layout" };
  const cx = (best.l + best.r) / 2,
    cy = (best.t + best.b) / 2;
  const w4 = (best.r - best.l) / 4,
    h4 = (best.b - best.t) / 4;
  const points: [number, number][] = [
    [cx, cy],
    [cx - w4, cy - h4],
    [cx + w4, cy - h4],
    [cx - w4, cy + h4],
    [cx + w4, cy + h4],
  ];
  let obstruction: Described | null = null,
    cover: ActElement | null = null;
  for (const p of points) {
    const hit = hitAt(el, win.document, p[0], p[1]);
    if (accepts(el, hit)) return { point: p, inside };
    if (!obstruction && hit) {
      obstruction = describe(hit);
      cover = hit;
    }
  }
  return {
    ok: false,
    reason: "obscured",
    obstruction,
    ...(cover ? { obstructionControls: controlsIn(cover, el) } : {}),
  };
}

const CONTROLS =
  "button,a[href],input:not([type=hidden]),select,textarea,summary,[role=button],[role=link],[role=checkbox],[role=menuitem],[role=tab],[onclick],[tabindex]:not([tabindex='-1'])";

/**
 * Whether what covers the target holds anything to close or answer it with: the controls in
 * its outermost ancestor that does not also hold the target (the overlay itself).
 */
function controlsIn(hit: ActElement, target: ActElement): number {
  try {
    let top = hit;
    for (let i = 0; top.parentElement && !composedContains(top.parentElement, target) && i < 64; i++)
      top = top.parentElement;
    if (top.matches(CONTROLS)) return 1;
    return top.querySelectorAll(CONTROLS).length;
  } catch {
    return 1;
  }
}

/** Whether the element's document is the tab's top one (a frame's viewport is not the tab's). */
function topLevel(view: ActWindow): boolean {
  try {
    return view.top === view;
  } catch {
    return false;
  }
}

function probe(win: ActWindow, el: ActElement | null, arg: ActArg): ProbeHit | ProbeMiss {
  if (!el || !el.isConnected) return { ok: false, reason: "detached" };
  const view = el.ownerDocument.defaultView || win;
  const cs = view.getComputedStyle(el);
  if (cs.display === "none" || cs.visibility === "hidden" || cs.visibility === "collapse")
    return { ok: false, reason: "not_visible" };
  if (disabledOf(el) && arg.requireEnabled !== false) return { ok: false, reason: "disabled" };
  // A top-document element wholly in the viewport and reached where it is stays there: the
  // page is not scrolled under the agent (nor its scroll handlers run) for nothing. Anything
  // else (cut off, covered, in a frame) is scrolled to the centre and probed again.
  let found = !arg.noScroll && topLevel(view) ? reach(win, el, view) : null;
  if (!arg.noScroll && !(found && "point" in found && found.inside)) {
    try {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    } catch {}
    found = null;
  }
  found ??= reach(win, el, view);
  if (!("point" in found)) return found;
  const chosen = found.point;
  const off = frameOffset(el.ownerDocument);
  let hidden = false;
  try {
    hidden = win.document.visibilityState === "hidden";
  } catch {}
  // From here on the element's window notes what receives the input (the "received" op).
  try {
    inputClock(view).got = { aim: el };
  } catch {}
  // The element took getComputedStyle above, so it is an element.
  return { ok: true, x: chosen[0] + off.x, y: chosen[1] + off.y, state: state(el), target: described(el), hidden };
}

export type ReceivedInput = "click" | "dblclick" | "contextmenu" | "over" | "drop";

/**
 * Whether the page received the input on the element since its probe: `got` true when the
 * event's target is the element, inside it, one of its labels or (a label) its control. When
 * not, `by` names what received it, and `down`/`up` where press and release landed when those
 * differ. `armed` false: no record (another world probed, a new document).
 */
export interface ReceivedAnswer {
  armed: boolean;
  got?: boolean;
  by?: Described | null;
  down?: Described | null;
  up?: Described | null;
  /** Whether the page saw the press at all (in this document). */
  pressed?: boolean;
}

function asElement(n: unknown): ActElement | null {
  const e = n as ActElement | null | undefined;
  return e && e.nodeType === 1 ? e : null;
}

function received(win: ActWindow, el: ActElement | null, input: ReceivedInput): ReceivedAnswer {
  const got: Received | undefined = readClock((el && el.ownerDocument.defaultView) || win)?.got;
  const aim = el ?? asElement(got?.aim);
  if (!aim || !got) return { armed: false };
  el = aim;
  const targets = input === "over" ? (got.over ?? []) : [got[input]];
  const hit = targets.some((t) => accepts(el, asElement(t)));
  if (hit) return { armed: true, got: true };
  const down = asElement(got.down),
    up = asElement(got.up);
  const out: ReceivedAnswer = {
    armed: true,
    got: false,
    by: describe(asElement(input === "over" ? got.over?.[got.over.length - 1] : (got[input] ?? got.up))),
    pressed: down !== null,
  };
  if (input !== "over" && down !== up) {
    out.down = describe(down);
    out.up = describe(up);
  }
  return out;
}

/** The act script's ops (the step's `op`; none is a probe). */
export const ACT_OPS = {
  probe: (
    win: ActWindow,
    el: ActElement | null,
    arg: { noScroll?: boolean; requireEnabled?: boolean },
  ): ProbeHit | ProbeMiss => probe(win, el, arg),
  state: (_win: ActWindow, el: ActElement | null): State => (el ? state(el) : { connected: false }),
  received: (win: ActWindow, el: ActElement | null, arg: { input: ReceivedInput }): ReceivedAnswer =>
    received(win, el, arg.input),
  hovered: (_win: ActWindow, el: ActElement | null): boolean => hovered(el),
  reached: (win: ActWindow, el: ActElement | null): boolean | Promise<boolean> => reached(win, el),
};

function hovered(el: ActElement | null): boolean {
  if (!el) return false;
  try {
    // A bare :hover never matches a non-link in a quirks-mode document; inside :is() it does.
    return el.matches(":is(:hover)");
  } catch {
    try {
      return el.matches(":hover");
    } catch {
      return false;
    }
  }
}

/** Under the pointer where the probe accepts a hit: the element, one of its labels, or (a label) its control. */
function pointed(el: ActElement): boolean {
  if (hovered(el)) return true;
  const labels = labelsOf(el);
  for (let i = 0; i < labels.length; i++) if (hovered(labels[i] ?? null)) return true;
  return el.localName === "label" && hovered(el.control ?? null);
}

/**
 * Whether the pointer came into the element's document, at the element or anywhere else in it: the
 * browser sends this frame the pointer. What is under it then is the press's evidence to judge, as in
 * the top page. A page may hold a pointer move for its next frame, so a move not seen yet is looked
 * for once more after it.
 */
function reached(win: ActWindow, el: ActElement | null): boolean | Promise<boolean> {
  const took = (): boolean => !el || pointed(el) || hovered(el.ownerDocument.documentElement);
  // No element to judge by: not held back here (the press's own evidence reads what came).
  if (took()) return true;
  return new Promise((resolve) => {
    let timer = 0;
    const answer = (): void => {
      win.clearTimeout(timer);
      resolve(took());
    };
    // A frame whose animation frames are throttled answers after a frame's worth of waiting.
    timer = win.setTimeout(answer, REACH_FRAME_MS);
    try {
      ownFrame(win, answer);
    } catch {}
  });
}

const REACH_FRAME_MS = 100;

export function pageAct(win: ActWindow, el: ActElement | null, arg: ActArg): unknown {
  return (opOf(ACT_OPS, arg) ?? ACT_OPS.probe)(win, el, arg);
}
