/**
 * The page code's entry, bundled at build time (bundle-macro.ts). `install` puts the runtime on our world's window; the
 * other exports are for unit tests that run the bundled text.
 */
export { install, framePath, refElement, snapshot } from "./dispatch.ts";
export { pageAct as act } from "./act/probe.ts";
export { pageDrag as drag } from "./act/drag.ts";
export { pageEdit as edit } from "./act/edit.ts";
export { pageQuiet as quiet } from "./act-settle.ts";
export { pageScroll as scroll } from "./act/scroll.ts";
export { pageSelect as select } from "./act/select.ts";
export { pageUpload as upload } from "./act/upload.ts";
export { pageFind as find } from "./inspect/find.ts";
export { pageFrameElement as frameElement, pageHostElement as hostElement } from "./inspect/compose.ts";
export { markListened } from "./snapshot/listener-mark.ts";
export { authField, focusedFrame, hitAt, openPopup, selectorRect, slotElement, viewState, waitSelector, waitText } from "./probes.ts";
export { pageRead as read } from "./inspect/read.ts";
export { pageResolveRef as resolve } from "./snapshot/resolve.ts";
export { pageSearch as search } from "./inspect/search.ts";
