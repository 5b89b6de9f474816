/**
 * 'bp trace start' / 'bp trace stop': a Chrome performance trace, recorded through the agent's
 * selected tab's session (as DevTools and Puppeteer do) and written as trace JSON
 * (`{"traceEvents": […]}`), which Perfetto and chrome://tracing open. One per agent.
 */
import type { CdpSession } from "../../cdp/session.ts";
import * as commands from "../../protocol/commands-record.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { BrowserConnection } from "../browser.ts";
import { defineHandler } from "../context/handler.ts";
import { selectedTab } from "../context/tabs.ts";
import type { Handler } from "../context/types.ts";
import { fileTimestamp, resolveOutputPath } from "../files.ts";
import { storeAndExport, storeFor } from "../store/index.ts";

/** DevTools' performance panel set (Puppeteer's default). */
const DEFAULT_CATEGORIES = [
  "-*",
  "devtools.timeline",
  "v8.execute",
  "disabled-by-default-devtools.timeline",
  "disabled-by-default-devtools.timeline.frame",
  "toplevel",
  "blink.console",
  "blink.user_timing",
  "latencyInfo",
  "disabled-by-default-devtools.timeline.stack",
  "disabled-by-default-v8.cpu_profiler",
];
const CATEGORY = /^-?[A-Za-z0-9_.,*-]{1,200}$/;
/** Larger traces than this are refused rather than read into memory. */
const MAX_TRACE_BYTES = 200 * 1024 * 1024;

interface Running {
  session: CdpSession;
  tab: string;
  categories: string[];
}

/** Per browser connection: the trace each agent is recording (a new connection starts with none). */
const traces = new WeakMap<BrowserConnection, Map<string, Running>>();

function tracesOf(browser: BrowserConnection): Map<string, Running> {
  let m = traces.get(browser);
  if (!m) traces.set(browser, (m = new Map()));
  return m;
}

const traceStartHandler = defineHandler(commands.traceStart)({
  async run(ctx, { categories }) {
    const { browser, rec, id } = selectedTab(ctx);
    const mine = tracesOf(browser);
    if (mine.has(ctx.req.clientKey)) {
      throw invalidArgument("trace", "A trace is already running for this agent; 'bp trace stop' ends it.", {
        reason: "trace_running",
      });
    }
    const list =
      categories === undefined
        ? DEFAULT_CATEGORIES
        : categories
            .split(",")
            .map((c) => c.trim())
            .filter((c) => c !== "");
    if (list.length === 0 || list.length > 100 || !list.every((c) => CATEGORY.test(c))) {
      throw invalidArgument(
        "categories",
        "Give trace categories as a comma list, e.g. devtools.timeline,v8 (a leading - excludes one).",
      );
    }
    const session = await browser.session(rec);
    // Claimed before the browser is asked, so two starts of one agent cannot both pass.
    mine.set(ctx.req.clientKey, { session, tab: id, categories: list });
    try {
      ctx.markDispatched();
      await session.send("Tracing.start", {
        transferMode: "ReturnAsStream",
        traceConfig: {
          includedCategories: list.filter((c) => !c.startsWith("-")),
          excludedCategories: list.filter((c) => c.startsWith("-")).map((c) => c.slice(1)),
        },
      });
    } catch (err) {
      mine.delete(ctx.req.clientKey);
      const message = err instanceof Error ? err.message : String(err);
      // Chrome records one trace at a time: another agent's (or DevTools') holds it.
      if (/already/i.test(message))
        throw new BpError(
          "target_busy",
          "The browser is already recording a trace (another agent's, or DevTools'); try again when it ends.",
          {
            retryable: true,
            hint: "Run 'bp trace start' again once the other trace has stopped.",
            context: { reason: "tracing_busy" },
          },
        );
      throw err;
    }
    return { tab: id, categories: list.length };
  },
});

const traceStopHandler = defineHandler(commands.traceStop)({
  async run(ctx, { file, force }) {
    const browser = ctx.broker.requireBrowser();
    ctx.agent();
    const mine = tracesOf(browser);
    const running = mine.get(ctx.req.clientKey);
    if (!running)
      throw invalidArgument("trace", "No trace is running for this agent; start one with 'bp trace start'.", {
        reason: "no_trace",
      });
    const dest = resolveOutputPath(file, `trace-${fileTimestamp()}.json`, {
      cwd: ctx.req.cwd,
      outputDir: ctx.req.outputDir,
    });
    mine.delete(ctx.req.clientKey);
    const { session } = running;
    if (session.closed)
      throw new BpError("tab_not_found", `The traced tab ${running.tab} closed; its trace is lost.`, {
        context: { tab: running.tab, reason: "target_closed" },
      });
    const complete = new Promise<string | undefined>((resolve) => {
      const off = session.on("Tracing.tracingComplete", (e) => {
        off();
        resolve(e.stream);
      });
    });
    await session.send("Tracing.end");
    const stream = await complete;
    if (!stream) throw new BpError("internal_error", "The browser returned no trace stream.");
    const text = await readStream(session, stream);
    let events = 0;
    try {
      const parsed = JSON.parse(text) as { traceEvents?: unknown[] } | unknown[];
      events = Array.isArray(parsed) ? parsed.length : (parsed.traceEvents?.length ?? 0);
    } catch {
      throw new BpError("internal_error", "The browser's trace is not JSON.");
    }
    const data = new TextEncoder().encode(text.trimStart().startsWith("[") ? `{"traceEvents":${text}}` : text);
    const written = storeAndExport(
      storeFor(ctx.broker.paths.home),
      ctx.req.clientKey,
      "trace",
      data,
      "application/json",
      dest,
      { noClobber: file === undefined, replace: force },
    );
    // The traced tab only for a person's text: the agent started the trace and knows it.
    const tab = ctx.req.mode === "human" ? { tab: running.tab } : {};
    return { file: written.file, sizeBytes: written.sizeBytes, events, ...tab };
  },
});

async function readStream(session: CdpSession, handle: string): Promise<string> {
  const parts: string[] = [];
  let size = 0;
  try {
    for (;;) {
      const chunk = await session.send("IO.read", { handle, size: 1 << 20 });
      const piece = chunk.base64Encoded ? Buffer.from(chunk.data, "base64").toString("utf8") : chunk.data;
      parts.push(piece);
      size += piece.length;
      if (size > MAX_TRACE_BYTES)
        throw new BpError(
          "result_too_large",
          `The trace is larger than ${MAX_TRACE_BYTES} bytes; record fewer categories or a shorter span.`,
          { context: { limitBytes: MAX_TRACE_BYTES } },
        );
      if (chunk.eof) break;
    }
  } finally {
    session.send("IO.close", { handle }).catch(() => undefined);
  }
  return parts.join("");
}

export const TRACE_HANDLERS: Handler[] = [traceStartHandler, traceStopHandler];
