/**
 * Page-side ref resolution against the registry `pageSnapshot` keeps on the window.
 *
 * Like `pageSnapshot`, this is injected by its own source text, so it must stay self-contained
 * (the registry symbol is repeated here on purpose). It never rebinds: a number belongs to one
 * element for the life of the document; if that element is gone the answer is `node_detached`.
 */
import type { PageDocument, PageElement, PageWindow, RefRegistry, ResolveResult } from "./types.ts";

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
    // An element of an inlined same-origin frame is only reachable while its iframe still hosts
    // that very document inside the top document.
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

export const RESOLVE_SOURCE = `(${pageResolveRef.toString()})`;

/**
 * Expression for `Runtime.evaluate` (returnByValue: false) in the same isolated world: it
 * evaluates to the element itself (a remote object the caller turns into a node id) or to the
 * failure reason as a string.
 */
export function resolveRefExpression(ref: number): string {
  const n = Number.isSafeInteger(ref) ? ref : -1;
  return `(() => { const r = ${RESOLVE_SOURCE}(window, ${n}); return r.element || r.reason; })()`;
}
