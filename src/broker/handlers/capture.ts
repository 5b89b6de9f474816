import type { Protocol } from "devtools-protocol";
import { CdpError, isCdpError, protocolErrorCause } from "../../cdp/errors.ts";
import type { CdpSession } from "../../cdp/session.ts";
import { BpError } from "../../shared/errors.ts";
import { boxesStale, chooseBoxes, parseRefList, toImageBoxes } from "../capture/annotate.ts";
import { drawAnnotations } from "../capture/draw.ts";
import { decodePng, encodePng, pngSize, type RgbaImage } from "../capture/png.ts";
import {
  captureScreenshot,
  documentRect,
  jpegSize,
  previewFactor,
  selectorRect,
  viewState,
  type Rect,
  type ViewState,
} from "../capture/shot.ts";
import {
  fileTimestamp,
  resolveOutputPath,
  siblingPath,
  type OutputPlace,
  type WriteOptions,
  type WrittenFile,
} from "../files.ts";
import { storeAndExport, storeFor, type ArtifactKind } from "../store/index.ts";
import { rootForFrame } from "../observe/frame-list.ts";
import { selectedTab, type Selected } from "../context/tabs.ts";
import * as commands from "../../protocol/commands-capture.ts";
import { defineHandler, type ReplyOf } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";

type Shot = ReplyOf<typeof commands.screenshot.result>;
type Preview = NonNullable<Shot["preview"]>;
/** Draws the boxes onto an image whose scale is `imageScale` image px per CSS px; returns how many. */
type Annotator = (img: RgbaImage, imageScale: number) => number;

function place(ctx: CallContext): OutputPlace {
  return { cwd: ctx.req.cwd, outputDir: ctx.req.outputDir };
}

/** Through the private store, so its quotas cover captures too. */
function save(
  ctx: CallContext,
  kind: ArtifactKind,
  data: Uint8Array,
  mimeType: string,
  path: string,
  opts: WriteOptions = {},
): WrittenFile {
  return storeAndExport(storeFor(ctx.broker.paths.home), ctx.req.clientKey, kind, data, mimeType, path, opts);
}

const remaining = (ctx: CallContext) => Math.max(1, ctx.deadline - Date.now());

const screenshotHandler = defineHandler(commands.screenshot)({
  async run(ctx, args) {
    const full = args.full;
    const selector = args.selector;
    const annotateArg = args.annotate;
    const wanted = annotateArg === undefined ? undefined : parseRefList(annotateArg);
    // The path is checked before anything is captured: a refused name changes nothing.
    const file = args.file;
    const path = resolveOutputPath(file, `screenshot-${fileTimestamp()}.png`, place(ctx));
    const sel = selectedTab(ctx);
    const { browser, rec } = sel;
    return ctx.broker.exclusive(rec.targetId, async () => {
      const session = await browser.session(rec);
      const { frameTree } = await session.send("Page.getFrameTree");
      const main = frameTree.frame;
      const view = await viewState(session, main.id);
      const out: Pick<Shot, "cut" | "hint" | "skippedRefs" | "annotationCount" | "preview"> = {};
      let clip: Rect = { x: view.scrollX, y: view.scrollY, width: view.width, height: view.height };
      let params: Protocol.Page.CaptureScreenshotRequest = { format: "png" };
      if (full) {
        const doc = await documentRect(session, view);
        clip = doc.rect;
        params = { format: "png", captureBeyondViewport: true, clip: { ...clip, scale: 1 } };
        if (doc.cut) {
          out.cut = true;
          out.hint =
            "The page is larger than one capture can hold; the image shows its top-left part. Use --selector for a region.";
        }
      } else if (selector !== undefined) {
        clip = await selectorClip(sel, session, main, view, selector);
        const inView =
          clip.x >= view.scrollX &&
          clip.y >= view.scrollY &&
          clip.x + clip.width <= view.scrollX + view.width &&
          clip.y + clip.height <= view.scrollY + view.height;
        params = { format: "png", captureBeyondViewport: !inView, clip: { ...clip, scale: 1 } };
      }
      let annotate: Annotator | undefined;
      if (wanted !== undefined) {
        const obs = sel.agent.observations.get(rec.targetId);
        if (!obs || !obs.last) throw boxesStale("no_observation");
        if (obs.generation !== browser.generation) throw boxesStale("browser_reconnected");
        if (obs.mainLoaderId !== main.loaderId)
          throw boxesStale(main.url === obs.url ? "document_replaced" : "navigation");
        const { boxes, skipped } = chooseBoxes(obs, wanted);
        // Boxes were measured at snapshot time; follow a scroll of the top document since then.
        const topLevel = !sel.agent.frames.has(rec.targetId);
        const shift = topLevel
          ? { x: obs.last.page.scrollX - view.scrollX, y: obs.last.page.scrollY - view.scrollY }
          : { x: 0, y: 0 };
        if (shift.x !== 0 || shift.y !== 0)
          out.hint =
            "The page scrolled since the last snapshot; boxes were shifted to follow. Run 'bp snapshot' for exact boxes.";
        if (skipped.length > 0) out.skippedRefs = skipped;
        annotate = (img, imageScale) => drawAnnotations(img, toImageBoxes(boxes, imageScale, shift), imageScale);
      }
      let png = await captureScreenshot(session, params, remaining(ctx));
      const { width, height } = pngSize(png);
      if (annotate) {
        const img = decodePng(png);
        out.annotationCount = annotate(img, width / view.width);
        png = encodePng(img);
      }
      const written = save(ctx, "screenshot", png, "image/png", path, {
        noClobber: file === undefined,
        replace: args.force === true,
      });
      const factor = previewFactor(width, height);
      if (factor !== undefined)
        out.preview = await writePreview(ctx, session, written.file, params, clip, factor, annotate);
      // Lean: a screenshot is always a PNG; its mimeType says nothing (a preview's does: PNG or JPEG).
      const { mimeType: _png, ...shot } = written;
      const result: Shot = { ...shot, width, height, ...out };
      return result;
    });
  },
});

/** The first match's box in document CSS px, searched in the agent's selected frame (or the top document). */
async function selectorClip(
  sel: Selected,
  session: CdpSession,
  main: Protocol.Page.Frame,
  view: ViewState,
  selector: string,
): Promise<Rect> {
  const root = await rootForFrame(sel.rec, session, main.id, main.loaderId, sel.agent.frames.get(sel.rec.targetId));
  const r = await selectorRect(root.session, root.frameId, selector);
  return {
    x: r.x + root.offset.x + view.scrollX,
    y: r.y + root.offset.y + view.scrollY,
    width: r.width,
    height: r.height,
  };
}

/**
 * A model-sized copy, captured again at a smaller scale rather than shrunk from the big image.
 * Plain screenshots come back from Chrome as JPEG quality 70; annotated ones are drawn again at
 * the preview's own resolution (labels stay legible) and written as PNG.
 */
async function writePreview(
  ctx: CallContext,
  session: CdpSession,
  path: string,
  params: Protocol.Page.CaptureScreenshotRequest,
  clip: Rect,
  factor: number,
  annotate: Annotator | undefined,
): Promise<Preview> {
  const scale = (params.clip?.scale ?? 1) * factor;
  const base = { ...params, clip: { x: clip.x, y: clip.y, width: clip.width, height: clip.height, scale } };
  if (annotate) {
    const png = await captureScreenshot(session, { ...base, format: "png" }, remaining(ctx));
    const img = decodePng(png);
    annotate(img, img.width / clip.width);
    const written = save(ctx, "screenshot", encodePng(img), "image/png", siblingPath(path, ".preview.png"), {
      replace: true,
    });
    return { ...written, width: img.width, height: img.height };
  }
  const jpeg = await captureScreenshot(session, { ...base, format: "jpeg", quality: 70 }, remaining(ctx));
  const written = save(ctx, "screenshot", jpeg, "image/jpeg", siblingPath(path, ".preview.jpg"), { replace: true });
  return { ...written, ...jpegSize(jpeg) };
}

const pdfHandler = defineHandler(commands.pdf)({
  async run(ctx, args) {
    const file = args.file;
    const path = resolveOutputPath(file, `page-${fileTimestamp()}.pdf`, place(ctx));
    const { browser, rec } = selectedTab(ctx);
    return ctx.broker.exclusive(rec.targetId, async () => {
      const session = await browser.session(rec);
      let data: string;
      try {
        ({ data } = await session.send(
          "Page.printToPDF",
          { landscape: args.landscape, printBackground: true },
          { timeoutMs: remaining(ctx) },
        ));
      } catch (err) {
        throw printFailure(err);
      }
      const written = save(ctx, "pdf", Buffer.from(data, "base64"), "application/pdf", path, {
        noClobber: file === undefined,
        replace: args.force === true,
      });
      // Lean: a PDF is always application/pdf.
      const { mimeType: _pdf, ...pdfFile } = written;
      return pdfFile;
    });
  },
});

export const CAPTURE_HANDLERS: Handler[] = [screenshotHandler, pdfHandler];

/** What a failed Page.printToPDF tells the agent; never internal_error. Exported for its unit test. */
export function printFailure(err: unknown): unknown {
  if (err instanceof CdpError && /not implemented|not supported|headless/i.test(err.message)) {
    return new BpError(
      "capability_denied",
      `This browser refused to print to PDF (${err.message}); Chrome always supports it in headless mode.`,
      {
        context: { reason: "headed_browser" },
        remediation: {
          code: "use_headless_browser",
          message:
            "Run 'bp launch --headless' (a separate browser) and open the page there, or use 'bp screenshot --full'.",
          actionRequired: true,
        },
      },
    );
  }
  // The page went away mid-print (tab_not_found, stale_ref), the link was lost or the deadline
  // passed: the command runtime names those.
  if (protocolErrorCause(err) !== undefined || (isCdpError(err) && err.kind !== "protocol") || err instanceof BpError)
    return err;
  // Chrome's 'Printing failed' refuses this page in its current state (mid-load, a replaced
  // document), not a broker defect: say so, and that a retry or a screenshot may do.
  return new BpError(
    "capability_denied",
    `Chrome could not print the page: ${err instanceof Error ? err.message : String(err)}`,
    {
      retryable: true,
      context: { reason: "print_failed" },
      hint: "Retry once the page has loaded, or use 'bp screenshot --full'.",
    },
  );
}
