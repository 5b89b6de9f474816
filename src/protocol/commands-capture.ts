import * as v from "valibot";
import { defineCommand, flag, ok, optText } from "./define.ts";
import { rule } from "./rules.ts";
import { pdfText, screenshotText } from "./human.ts";

/** Every file-producing command answers with this shape (images add width and height); screenshot and pdf leave out the mimeType their format fixes. */
export const fileResult = {
  file: v.pipe(v.string(), v.description("Absolute path of the written file (mode 0600)")),
  mimeType: v.string(),
  sizeBytes: v.number(),
};

const fileArg = (what: string) =>
  optText(
    `Output file for the ${what}; relative names resolve in BROWSER_PILOT_OUTPUT_DIR if set, else the working directory`,
  );

/** An explicit output name that exists is refused unless the agent says so. */
export const forceArg = flag("Replace an existing file at the given name");

export const screenshot = defineCommand({
  name: "screenshot",
  group: "Files",
  summary: "PNG of the page; --annotate draws numbered boxes for the latest snapshot's refs",
  positionals: ["file"],
  aliases: { f: "full" },
  args: () =>
    v.pipe(
      v.object({
        file: fileArg("PNG (default screenshot-<UTC time>.png)"),
        force: forceArg,
        full: flag("Capture the whole page, not just the viewport"),
        selector: optText("Capture only the first element matching this CSS selector"),
        annotate: v.optional(
          v.pipe(
            v.string(),
            v.description(
              "Draw numbered boxes for the refs of your latest snapshot: all, or a comma list (1,4,7); not with --full/--selector",
            ),
          ),
        ),
      }),
      rule(
        "annotate",
        "--annotate draws on the viewport; it cannot be combined with --full or --selector.",
        (a) => a.annotate !== undefined && (a.full || a.selector !== undefined),
      ),
      rule("selector", "Use either --full or --selector, not both.", (a) => a.full && a.selector !== undefined),
    ),
  result: () =>
    ok({
      file: fileResult.file,
      sizeBytes: fileResult.sizeBytes,
      width: v.pipe(v.number(), v.description("Image width in pixels")),
      height: v.pipe(v.number(), v.description("Image height in pixels")),
      annotationCount: v.optional(v.pipe(v.number(), v.description("Boxes drawn (refs visible in the viewport)"))),
      skippedRefs: v.optional(
        v.pipe(v.array(v.number()), v.description("Requested refs without a box (folded in the snapshot)")),
      ),
      preview: v.optional(
        v.pipe(
          v.object({
            file: v.string(),
            mimeType: v.string(),
            width: v.number(),
            height: v.number(),
            sizeBytes: v.number(),
          }),
          v.description("Model-sized copy written next to large screenshots (longer side > 1568 px or > 1.15 MP)"),
        ),
      ),
      cut: v.optional(
        v.pipe(v.literal(true), v.description("The page was larger than one capture can hold; the image is cut")),
      ),
      hint: v.optional(v.string()),
    }),
  example: "bp screenshot shot.png --annotate",
  runs: "broker",
  human: screenshotText,
  observes: true,
});

export const pdf = defineCommand({
  name: "pdf",
  group: "Files",
  summary: "Print the page to PDF (a headed Chrome may refuse; headless always can)",
  positionals: ["file"],
  args: () =>
    v.object({
      file: fileArg("PDF (default page-<UTC time>.pdf)"),
      force: forceArg,
      landscape: flag("Landscape paper orientation"),
    }),
  result: () => ok({ file: fileResult.file, sizeBytes: fileResult.sizeBytes }),
  example: "bp pdf report.pdf --landscape",
  runs: "broker",
  human: pdfText,
});

export const CAPTURE_COMMANDS = [screenshot, pdf];
