/**
 * Small page-side reads of the broker, part of the page bundle and called by name: what
 * `bp wait` looks for, the element under a point, the focused frame, viewport facts for
 * screenshots, whether a sign-in field shows (handoff), and a popup opened in a profile.
 */
import {
  composedParent,
  deepFocus,
  type ActDocument,
  type ActElement,
  type ActNode,
  type ActWindow,
} from "./act/dom.ts";

/** Members only some engines or element kinds have. */
interface ProbeElement extends ActElement {
  innerText?: string;
  tagName: string;
  checkVisibility?(options: { checkOpacity: boolean; checkVisibilityCSS: boolean }): boolean;
}

interface ProbeWindow extends ActWindow {
  devicePixelRatio?: number;
  open(url: string, target: string, features: string): unknown;
}

export function waitText(win: ActWindow, a: { needle: string }): { context: string } | null {
  const d = win.document;
  const root = (d.body || d.documentElement) as ProbeElement | null;
  if (!root) return null;
  const text = String(root.innerText || root.textContent || "").replace(/\s+/g, " ");
  const i = text.toLowerCase().indexOf(a.needle);
  if (i < 0) return null;
  return { context: text.slice(Math.max(0, i - 60), i + a.needle.length + 60).trim() };
}

/** The first match, or with a.visible the first a person can see; bounded to 500 matches. */
export function waitSelector(
  win: ActWindow,
  a: { css: string; visible?: boolean },
): { tagName: string; visible: boolean } | { invalid: true } | null {
  let list: ArrayLike<ProbeElement>;
  try {
    list = win.document.querySelectorAll(a.css) as ArrayLike<ProbeElement>;
  } catch {
    return { invalid: true };
  }
  const seen = (el: ProbeElement): boolean => {
    const r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return false;
    if (typeof el.checkVisibility === "function")
      return el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    const s = win.getComputedStyle(el);
    return s.visibility !== "hidden" && s.display !== "none";
  };
  for (let i = 0; i < list.length && i < 500; i++) {
    const el = list[i];
    if (!el) continue;
    const visible = seen(el);
    if (visible || !a.visible) return { tagName: el.tagName.toLowerCase(), visible };
  }
  return null;
}

export function authField(win: ActWindow): boolean {
  const fields = win.document.querySelectorAll('input[type="password"], input[autocomplete="one-time-code"]');
  for (let i = 0; i < fields.length; i++) {
    const el = fields[i];
    if (!el) continue;
    const r = el.getBoundingClientRect();
    const s = win.getComputedStyle(el);
    if (r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none") return true;
  }
  return false;
}

/** Viewport facts read in our world: the page can redefine `devicePixelRatio` or `scrollX` only for its own. */
export function viewState(win: ProbeWindow): {
  dpr: number;
  width: number;
  height: number;
  scrollX: number;
  scrollY: number;
} {
  return {
    dpr: win.devicePixelRatio || 1,
    width: win.innerWidth,
    height: win.innerHeight,
    scrollX: win.scrollX,
    scrollY: win.scrollY,
  };
}

export function selectorRect(
  win: ActWindow,
  a: { selector: string },
): { x: number; y: number; width: number; height: number } | { error: string } | null {
  let el: ActElement | null;
  try {
    el = win.document.querySelector(a.selector);
  } catch {
    return { error: "syntax" };
  }
  if (!el) return null;
  const b = el.getBoundingClientRect();
  return { x: b.left, y: b.top, width: b.width, height: b.height };
}

/**
 * The element at a viewport point through open shadow roots and same-origin frames, with its (or an ancestor's) ref.
 */
export function hitAt(
  win: ActWindow,
  p: { x: number; y: number },
): { tagName: string; id?: string; role?: string; name?: string; ref?: number } | null {
  let doc: ActDocument = win.document,
    x = p.x,
    y = p.y;
  let el = doc.elementFromPoint(x, y);
  for (let i = 0; el && i < 32; i++) {
    if (el.shadowRoot) {
      const inner = el.shadowRoot.elementFromPoint?.(x, y);
      if (inner && inner !== el) {
        el = inner;
        continue;
      }
    }
    if ((el.localName === "iframe" || el.localName === "frame") && el.contentDocument) {
      const r = el.getBoundingClientRect();
      x -= r.left + el.clientLeft;
      y -= r.top + el.clientTop;
      doc = el.contentDocument;
      const next = doc.elementFromPoint(x, y);
      if (!next) break;
      el = next;
      continue;
    }
    break;
  }
  if (!el) return null;
  const name = (
    el.getAttribute("aria-label") ||
    el.getAttribute("title") ||
    el.getAttribute("alt") ||
    el.textContent ||
    ""
  )
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 80);
  const out: { tagName: string; id?: string; role?: string; name?: string; ref?: number } = { tagName: el.localName };
  if (el.id) out.id = String(el.id).slice(0, 80);
  const role = el.getAttribute("role");
  if (role) out.role = role.slice(0, 40);
  if (name) out.name = name;
  const reg = Reflect.get(win, Symbol.for("browser-pilot.ref-registry.v1")) as
    | { doc: unknown; byEl: WeakMap<object, number> }
    | undefined;
  if (reg && reg.doc === win.document) {
    for (let n: ActNode | null = el, k = 0; n && k < 8; k++, n = composedParent(n)) {
      const ref = reg.byEl.get(n);
      if (ref !== undefined) {
        out.ref = ref;
        break;
      }
    }
  }
  return out;
}

/** The focused element when it is an iframe this world cannot reach (out of process); null otherwise. */
export function focusedFrame(win: ActWindow): ActElement | null {
  const f = deepFocus(win);
  return f.opaque ? f.el : null;
}

/** Opens a popup (with the user gesture the broker's call carries): a new tab in this page's profile. */
export function openPopup(win: ProbeWindow, a: { url: string; name: string }): boolean {
  win.open(a.url, a.name, "noopener,popup,width=1280,height=800");
  return true;
}

/** The element an earlier step left in our world's slot `name` (a file input, an option). */
export function slotElement(win: ActWindow, name: string): ActElement | null {
  const s = Reflect.get(win, Symbol.for(name)) as { el?: ActElement } | undefined;
  return s?.el ?? null;
}
