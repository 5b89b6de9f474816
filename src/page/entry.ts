/**
 * Everything the page runtime holds, as ordinary modules: `bundle-macro.ts` bundles this file
 * with its imports into one script at build time. The export names are the names the runtime
 * calls by (the minifier keeps them).
 */
import { pageResolveRef } from "./resolve-script.ts";
import type { PageDocument, PageElement, PageWindow, RefRegistry } from "./types.ts";

export { pageDrag as drag } from "./act-drag.ts";
export { pageEdit as edit } from "./act-edit.ts";
export { pageScroll as scroll } from "./act-scroll.ts";
export { pageSelect as select } from "./act-select.ts";
export { pageUpload as upload } from "./act-upload.ts";
export { pageFind as find } from "./find-script.ts";
export { authField, focusedFrame, hitAt, openPopup, selectorRect, slotElement, viewState, waitSelector, waitText } from "./probes.ts";
export { pageFrameElement as frameElement, pageHostElement as hostElement } from "./inspect/compose.ts";
export { markListened } from "./listener-mark.ts";
export { pageRead as read } from "./read-script.ts";
export { pageResolveRef as resolve } from "./resolve-script.ts";
export { pageSearch as search } from "./search-script.ts";
import { listenedFresh } from "./listener-mark.ts";
import { snapshotMain } from "./snapshot/main.ts";
import type { SnapshotOptions, SnapshotResult } from "./types.ts";

/** The snapshot; with `ifMarked`, null unless this document's click-listener marks still hold (listener-mark.ts). */
export function snapshot(win: PageWindow, opts?: SnapshotOptions & { ifMarked?: boolean }): SnapshotResult | null {
  return opts?.ifMarked && !listenedFresh(win) ? null : snapshotMain(win, opts);
}

/** The element behind a ref, or null (for CDP calls that need the node itself). */
export function refElement(win: PageWindow, ref: number): PageElement | null {
  return pageResolveRef(win, ref).element;
}

/** The iframe element of a same-origin frame path ("1.2") of the latest snapshot. */
export function framePath(win: PageWindow, path: string): PageElement | null {
  const reg = Reflect.get(win, Symbol.for("browser-pilot.ref-registry.v1")) as RefRegistry | undefined;
  return reg?.paths?.get(path) ?? null;
}

function pageDocument(win: PageWindow): PageDocument {
  return win.document;
}
export { pageDocument as document };
