/** Page-wide facts read once before the walk: geometry, deep focus, the top modal dialog, a full-viewport overlay. */
import type { PageDocument, PageElement, PageGeometry, PageWindow } from "../types.ts";
import { styleOf } from "./styles.ts";
import { inter, lower, num0 } from "./text.ts";

export function pageGeometry(
  win: PageWindow,
  topDoc: PageDocument,
  de: PageElement | null,
  body: PageElement | null,
): PageGeometry {
  // In quirks mode the root element's client box is the whole document, not the viewport.
  const quirks = Reflect.get(topDoc, "compatMode") === "BackCompat";
  const vw = Math.round((quirks ? 0 : num0(de && de.clientWidth)) || num0(win.innerWidth));
  const vh = Math.round((quirks ? 0 : num0(de && de.clientHeight)) || num0(win.innerHeight));
  const sx = Math.round(num0(win.scrollX));
  const sy = Math.round(num0(win.scrollY));
  const dw = Math.max(vw, Math.round(num0(de && de.scrollWidth)), Math.round(num0(body && body.scrollWidth)));
  const dh = Math.max(vh, Math.round(num0(de && de.scrollHeight)), Math.round(num0(body && body.scrollHeight)));
  return {
    viewportWidth: vw,
    viewportHeight: vh,
    documentWidth: dw,
    documentHeight: dh,
    scrollX: sx,
    scrollY: sy,
    pixelsAbove: sy,
    pixelsBelow: Math.max(0, dh - vh - sy),
    pixelsLeft: sx,
    pixelsRight: Math.max(0, dw - vw - sx),
    scrollPercentX: scrollPercent(sx, dw, vw),
    scrollPercentY: scrollPercent(sy, dh, vh),
  };
}

export function scrollPercent(pos: number, doc: number, view: number): number {
  return doc > view ? Math.round((pos / (doc - view)) * 1000) / 10 : 0;
}

/** The deep active element (through shadow roots and same-origin frames). */
export function deepFocus(topDoc: PageDocument, de: PageElement | null): PageElement | null {
  try {
    let a: PageElement | null | undefined = topDoc.activeElement;
    for (let i = 0; a && i < 32; i++) {
      const sr = a.shadowRoot;
      if (sr && sr.activeElement) {
        a = sr.activeElement;
        continue;
      }
      const tag = lower(a.localName);
      if (tag === "iframe" || tag === "frame") {
        const cd = a.contentDocument;
        if (cd && cd.activeElement && cd.activeElement !== cd.body) {
          a = cd.activeElement;
          continue;
        }
      }
      break;
    }
    if (a && a !== topDoc.body && a !== de) return a;
    return null;
  } catch {
    return null;
  }
}

/** The topmost modal <dialog>: it makes everything outside it inert. */
export function modalDialog(topDoc: PageDocument): PageElement | null {
  let topModal: PageElement | null = null;
  try {
    const open = topDoc.querySelectorAll("dialog[open]");
    for (let i = 0; i < open.length; i++) {
      const d = open[i];
      try {
        if (d && d.matches(":modal")) topModal = d;
      } catch {
        /* :modal unsupported */
      }
    }
  } catch {
    topModal = null;
  }
  return topModal;
}

/**
 * A full-viewport overlay, found by hit-testing a few points rather than reading every element: climbs at most 64
 * ancestors for a fixed/absolute box, z-index >= 10, covering half the viewport.
 */
export function findOverlay(
  win: PageWindow,
  topDoc: PageDocument,
  de: PageElement | null,
  body: PageElement | null,
  vw: number,
  vh: number,
): PageElement | null {
  let overlayEl: PageElement | null = null;
  if (!(vw > 0 && vh > 0 && typeof topDoc.elementFromPoint === "function")) return null;
  if (noRaisedBox(win, topDoc)) return null;
  const points = [
    [vw / 2, vh / 2],
    [vw * 0.1, vh * 0.1],
    [vw * 0.9, vh * 0.9],
  ];
  for (let i = 0; i < points.length && !overlayEl; i++) {
    const pt = points[i] as number[];
    let e: PageElement | null = null;
    try {
      e = topDoc.elementFromPoint(pt[0] as number, pt[1] as number);
    } catch {
      e = null;
    }
    for (let k = 0; e && k < 64 && e !== de && e !== body; k++) {
      try {
        const st = styleOf(win, e);
        if ((st.position === "fixed" || st.position === "absolute") && parseInt(st.zIndex, 10) >= 10) {
          const r = e.getBoundingClientRect();
          const a = inter(
            { l: r.left, t: r.top, r: r.left + r.width, b: r.top + r.height },
            { l: 0, t: 0, r: vw, b: vh },
          );
          if (a.r > a.l && a.b > a.t && (a.r - a.l) * (a.b - a.t) >= 0.5 * vw * vh) {
            overlayEl = e;
            break;
          }
        }
        e = e.parentElement || null;
      } catch {
        e = null;
      }
    }
  }
  return overlayEl;
}

/** Up to this many elements, reading every element's position costs less than the hit tests. */
const SCAN_MAX = 300;

/**
 * A small document with no fixed or absolute box of z-index >= 10 has no overlay, and each hit test first updates
 * rendering, which costs a small page more than this look.
 */
function noRaisedBox(win: PageWindow, topDoc: PageDocument): boolean {
  try {
    const all = topDoc.getElementsByTagName("*");
    const n = all.length;
    if (!(n <= SCAN_MAX)) return false;
    for (let i = 0; i < n; i++) {
      const e = all[i];
      if (!e) continue;
      const st = styleOf(win, e);
      const p = st.position;
      if ((p === "fixed" || p === "absolute") && parseInt(st.zIndex, 10) >= 10) return false;
    }
    return true;
  } catch {
    return false;
  }
}
