/**
 * The page code's entry: `bundle-macro.ts` bundles this file with everything it imports into
 * one script at build time. `install` puts the page runtime (dispatch.ts) on our world's
 * window; the other exports are the runtime's functions by their call names, for the unit
 * tests that run the bundled text (the minifier keeps export names).
 */
export { install, framePath, refElement, snapshot } from "./dispatch.ts";
export { pageAct as act } from "./act/probe.ts";
export { pageDrag as drag } from "./act/drag.ts";
export { pageEdit as edit } from "./act/edit.ts";
export { pageQuiet as quiet } from "./settle/settle.ts";
export { pageScroll as scroll } from "./act/scroll.ts";
export { pageSelect as select } from "./act/select.ts";
export { pageUpload as upload } from "./act/upload.ts";
export { pageFind as find } from "./inspect/find.ts";
export { pageFrameElement as frameElement, pageHostElement as hostElement } from "./inspect/compose.ts";
export { markListened } from "./snapshot/listener-mark.ts";
export {
  authField,
  focusedFrame,
  hitAt,
  openPopup,
  selectorRect,
  slotElement,
  viewState,
  waitSelector,
  waitText,
} from "./probes.ts";
export { pageRead as read } from "./inspect/read.ts";
export { pageResolveRef as resolve } from "./snapshot/resolve.ts";
export { pageSearch as search } from "./inspect/search.ts";
