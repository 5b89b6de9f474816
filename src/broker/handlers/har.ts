/**
 * 'bp net har': this agent's request journal as HAR 1.2. Headers and URLs are masked as
 * 'net show' masks them; bodies the browser still holds go in while they fit the budget.
 */
import * as commands from "../../protocol/commands-record.ts";
import { VERSION } from "../../shared/version.ts";
import type { BrowserConnection } from "../browser.ts";
import { defineHandler } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";
import { resolveOutputPath } from "../files.ts";
import { JOURNAL_MAX_ENTRIES, type NetEntry } from "../net/journal.ts";
import { redactUrl } from "../net/redact.ts";
import { netSession } from "../net/tracker.ts";
import { storeAndExport, storeFor } from "../store/index.ts";
import { maskHeaders } from "./net.ts";

/** A body larger than this is left out (its size stays); all bodies together stop at the total. */
const BODY_MAX = 2 * 1024 * 1024;
const BODIES_TOTAL = 32 * 1024 * 1024;
const POST_DATA_MAX = 64 * 1024;

type Pair = { name: string; value: string };

const pairs = (h: Record<string, string> | undefined): Pair[] =>
  Object.entries(maskHeaders(h) ?? {}).map(([name, value]) => ({ name, value }));

function query(url: string): Pair[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function header(h: Record<string, string> | undefined, name: string): string | undefined {
  for (const [k, v] of Object.entries(h ?? {})) if (k.toLowerCase() === name) return v;
  return undefined;
}

async function bodies(
  ctx: CallContext,
  entries: NetEntry[],
): Promise<Map<number, { text: string; encoding?: "base64" }>> {
  const out = new Map<number, { text: string; encoding?: "base64" }>();
  const browser: BrowserConnection | undefined = ctx.broker.browser;
  if (!browser || browser.closed) return out;
  let total = 0;
  const want = entries.filter((e) => e.done && !e.error && (e.size ?? 0) <= BODY_MAX);
  for (let i = 0; i < want.length && total < BODIES_TOTAL; i += 8) {
    const got = await Promise.all(
      want.slice(i, i + 8).map(async (e) => {
        const session = netSession(browser, e.targetId);
        const b = session
          ? await session.send("Network.getResponseBody", { requestId: e.requestId }).catch(() => undefined)
          : undefined;
        return [e, b] as const;
      }),
    );
    for (const [e, b] of got) {
      if (!b || b.body.length > BODY_MAX * 1.4 || total + b.body.length > BODIES_TOTAL) continue;
      total += b.body.length;
      out.set(e.id, b.base64Encoded ? { text: b.body, encoding: "base64" } : { text: b.body });
    }
  }
  return out;
}

function harEntry(e: NetEntry, body: { text: string; encoding?: "base64" } | undefined) {
  const time = Math.max(0, e.durationMs ?? 0);
  const mimeType = e.mimeType ?? header(e.responseHeaders, "content-type") ?? "";
  const post = e.postData;
  return {
    startedDateTime: new Date(e.startedAt).toISOString(),
    time,
    request: {
      method: e.method,
      url: e.url,
      httpVersion: "",
      cookies: [],
      headers: pairs(e.requestHeaders),
      queryString: query(e.url),
      ...(post !== undefined
        ? {
            postData: {
              mimeType: header(e.requestHeaders, "content-type") ?? "",
              text: redactUrl(post.slice(0, POST_DATA_MAX)),
            },
          }
        : {}),
      headersSize: -1,
      bodySize: post !== undefined ? post.length : 0,
    },
    response: {
      status: e.status ?? 0,
      statusText: e.statusText ?? "",
      httpVersion: "",
      cookies: [],
      headers: pairs(e.responseHeaders),
      content: {
        size: e.size ?? 0,
        mimeType,
        ...(body ? { text: body.text } : {}),
        ...(body?.encoding ? { encoding: body.encoding } : {}),
      },
      redirectURL: redactUrl(header(e.responseHeaders, "location") ?? ""),
      headersSize: -1,
      bodySize: e.size ?? -1,
    },
    cache: {},
    timings: { send: 0, wait: time, receive: 0 },
    _resourceType: e.type,
    ...(e.error !== undefined ? { _error: e.error } : {}),
    ...(e.rule ? { _rule: `${e.rule.action} ${e.rule.id}` } : {}),
  };
}

const netHarHandler = defineHandler(commands.netHar)({
  async run(ctx, { file, force }) {
    ctx.agent();
    const dest = resolveOutputPath(file, "requests.har", { cwd: ctx.req.cwd, outputDir: ctx.req.outputDir });
    const { entries } = ctx.agent().net.journal.query({ limit: JOURNAL_MAX_ENTRIES });
    const kept = await bodies(ctx, entries);
    const har = {
      log: {
        version: "1.2",
        creator: { name: "Browser Pilot", version: VERSION },
        pages: [],
        entries: entries.map((e) => harEntry(e, kept.get(e.id))),
      },
    };
    const data = new TextEncoder().encode(JSON.stringify(har));
    const written = storeAndExport(
      storeFor(ctx.broker.paths.home),
      ctx.req.clientKey,
      "har",
      data,
      "application/json",
      dest,
      { replace: force },
    );
    return { file: written.file, sizeBytes: written.sizeBytes, entries: entries.length };
  },
});

export const HAR_HANDLERS: Handler[] = [netHarHandler];
