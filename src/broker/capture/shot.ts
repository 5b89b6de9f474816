/**
 * Screenshot geometry and capture. Clips are in document CSS px (Page.captureScreenshot); output is clip × scale ×
 * devicePixelRatio.
 */
import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import { callFn } from "../page-fns.ts";

/** Preview limits: what a vision model takes without downscaling it itself. */
export const PREVIEW_MAX_SIDE = 1568;
export const PREVIEW_MAX_PIXELS = 1_150_000;
/** Chrome cannot render a single capture taller or wider than its texture limit. */
export const MAX_CAPTURE_DEVICE_PX = 16_384;

export interface ViewState {
  dpr: number;
  /** Layout viewport including scrollbars, CSS px. */
  width: number;
  height: number;
  scrollX: number;
  scrollY: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Viewport facts read in our world: the page can redefine `devicePixelRatio` or `scrollX` only for its own. */
export async function viewState(session: CdpSession, frameId: string): Promise<ViewState> {
  const v = await callFn({ session, frameId }, "viewState", undefined);
  return { dpr: v.dpr > 0 ? v.dpr : 1, width: v.width, height: v.height, scrollX: v.scrollX, scrollY: v.scrollY };
}

/** The first element matching `selector` in a frame, as a rect in that frame's viewport px. */
export async function selectorRect(session: CdpSession, frameId: string, selector: string): Promise<Rect> {
  const r = await callFn({ session, frameId }, "selectorRect", { selector });
  if (r === null) throw invalidArgument("selector", `Selector "${selector}" did not match.`, { selector });
  if ("error" in r) throw invalidArgument("selector", `"${selector}" is not a valid CSS selector.`, { selector });
  if (!(r.width > 0 && r.height > 0))
    throw invalidArgument("selector", `The element "${selector}" matches has no size (hidden or empty).`, { selector });
  return r;
}

/** Whole-document size in CSS px, bounded so one capture stays within Chrome's limits. */
export async function documentRect(session: CdpSession, view: ViewState): Promise<{ rect: Rect; cut: boolean }> {
  const m = await session.send("Page.getLayoutMetrics");
  const size = m.cssContentSize ?? m.contentSize;
  const maxCss = Math.floor(MAX_CAPTURE_DEVICE_PX / view.dpr);
  const width = Math.max(view.width, Math.ceil(size.width));
  const height = Math.max(view.height, Math.ceil(size.height));
  return {
    rect: { x: 0, y: 0, width: Math.min(width, maxCss), height: Math.min(height, maxCss) },
    cut: width > maxCss || height > maxCss,
  };
}

/** Scale factor for a preview of a w×h image, or undefined when the image is small enough. */
export function previewFactor(width: number, height: number): number | undefined {
  if (Math.max(width, height) <= PREVIEW_MAX_SIDE && width * height <= PREVIEW_MAX_PIXELS) return undefined;
  return Math.min(PREVIEW_MAX_SIDE / Math.max(width, height), Math.sqrt(PREVIEW_MAX_PIXELS / (width * height)));
}

export async function captureScreenshot(
  session: CdpSession,
  params: Protocol.Page.CaptureScreenshotRequest,
  timeoutMs: number,
): Promise<Uint8Array> {
  try {
    const { data } = await session.send("Page.captureScreenshot", params, { timeoutMs });
    return Buffer.from(data, "base64");
  } catch (err) {
    if (err instanceof BpError) throw err;
    throw new BpError("internal_error", `Chrome could not capture the page: ${(err as Error).message}`, {
      retryable: true,
    });
  }
}

/** Width and height from a baseline or progressive JPEG's SOF marker. */
export function jpegSize(jpeg: Uint8Array): { width: number; height: number } {
  let off = 2;
  while (off + 9 < jpeg.length) {
    if (jpeg[off] !== 0xff) break;
    const marker = jpeg[off + 1] ?? 0;
    const len = ((jpeg[off + 2] ?? 0) << 8) | (jpeg[off + 3] ?? 0);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return {
        height: ((jpeg[off + 5] ?? 0) << 8) | (jpeg[off + 6] ?? 0),
        width: ((jpeg[off + 7] ?? 0) << 8) | (jpeg[off + 8] ?? 0),
      };
    }
    off += 2 + len;
  }
  return { width: 0, height: 0 };
}
