/**
 * Page-side ref resolution against the registry the snapshot (`snapshot/main.ts`) keeps on the window.
 *
 * Part of the page bundle (`resolve`, and `refElement` in entry.ts); the registry symbol is
 * repeated here on purpose, so the module needs none of the snapshot's. It never rebinds: a
 * number belongs to one element for the life of the document; if that element is gone the
 * answer is `node_detached`.
 */
import type { PageDocument, PageElement, PageWindow, RefRegistry, ResolveResult } from "../types.ts";

export function pageResolveRef(win: PageWindow, ref: number): ResolveResult {
  const KEY = Symbol.for("browser-pilot.ref-registry.v1");
  const reg = Reflect.get(win, KEY) as RefRegistry | undefined;
  if (!reg || reg.doc !== win.document || typeof ref !== "number" || !(ref >= 1) || ref >= reg.next) {
    return { element: null, reason: "unknown_ref" };
  }
  const held = reg.byRef.get(ref);
  if (held === undefined) return { element: null, reason: "unknown_ref" };
  const el: PageElement | undefined =
    typeof WeakRef === "function" && held instanceof WeakRef ? held.deref() : (held as PageElement);
  if (!el) return { element: null, reason: "node_detached" };
  try {
    if (!el.isConnected) return { element: null, reason: "node_detached" };
    // An inlined frame's element is reachable only while its iframe still hosts that document in the top document.
    let doc: PageDocument = el.ownerDocument;
    for (let i = 0; doc !== reg.doc; i++) {
      const host = reg.frames.get(doc);
      if (!host || i > 32 || !host.isConnected) return { element: null, reason: "node_detached" };
      let current: PageDocument | null | undefined = null;
      try {
        current = host.contentDocument;
      } catch {
        current = null;
      }
      if (current !== doc) return { element: null, reason: "node_detached" };
      doc = host.ownerDocument;
    }
  } catch {
    return { element: null, reason: "node_detached" };
  }
  return { element: el, reason: null };
}
