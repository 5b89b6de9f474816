/**
 * Command handlers for the request journal and network rules (cookies and auth are in
 * net-access.ts, downloads in downloads.ts). Everything is per client key: another agent's
 * rules, requests, credentials and downloads are never visible or addressable.
 */
import { readFileSync, statSync } from "node:fs";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import { cutString } from "../../shared/page-strings.ts";
import * as commands from "../../protocol/commands-net.ts";
import { defineHandler, type ReplyOf } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";
import { resolveOutputPath } from "../files.ts";
import { coverControlledTabs } from "../net/index.ts";
import type { NetEntry } from "../net/journal.ts";
import { redactUrl } from "../net/redact.ts";
import {
  MAX_MOCK_BODY,
  MAX_RULE_BYTES,
  MAX_RULES,
  parseHeader,
  publicRule,
  ruleBytes,
  type PublicRule,
  type Rule,
} from "../net/rules.ts";
import { interceptingTabs, netSession, syncAllTabs } from "../net/tracker.ts";
import { storeAndExport, storeFor } from "../store/index.ts";
import { DOWNLOAD_HANDLERS } from "./downloads.ts";
import { ACCESS_HANDLERS } from "./net-access.ts";

const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)$/i;

const place = (ctx: CallContext) => ({ cwd: ctx.req.cwd, outputDir: ctx.req.outputDir });

// ---------- journal ----------

type RequestSummary = ReplyOf<typeof commands.net.result>["requests"][number];
type Shown = Extract<ReplyOf<typeof commands.netShow.result>, { request: unknown }>;

/**
 * Lean: no method for a GET (nearly every request), no tab when it is the one the agent has
 * selected, no count or flag unless the list was cut.
 */
function summary(e: NetEntry, selectedTab: string | undefined): RequestSummary {
  return {
    id: e.id,
    ...(e.method !== "GET" ? { method: e.method } : {}),
    url: e.url,
    type: e.type,
    ...(e.status !== undefined ? { status: e.status } : {}),
    ...(e.size !== undefined ? { size: e.size } : {}),
    ...(e.durationMs !== undefined ? { time: e.durationMs } : {}),
    ...(e.error !== undefined ? { error: e.error } : {}),
    ...(e.rule ? { rule: `${e.rule.action} ${e.rule.id}` } : {}),
    ...(e.tab !== selectedTab ? { tab: e.tab } : {}),
  };
}

/** The reason phrase a status code has by default says nothing the code does not. */
async function ownStatusText(status: number | undefined, text: string | undefined): Promise<string | undefined> {
  if (!text) return undefined;
  // Loaded on use: node:http costs the idle broker megabytes.
  const { STATUS_CODES } = await import("node:http");
  return status !== undefined && STATUS_CODES[status]?.toLowerCase() === text.toLowerCase() ? undefined : text;
}

/** The MIME type is shown only when the response's Content-Type header does not already say it. */
function ownMimeType(mimeType: string | undefined, headers: Record<string, string> | undefined): string | undefined {
  if (!mimeType) return undefined;
  const contentType = Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === "content-type")?.[1];
  const media = contentType?.split(";")[0]?.trim().toLowerCase();
  return media === mimeType.toLowerCase() ? undefined : mimeType;
}

const POST_DATA_SHOWN = 4000;

/** The agent's tab id of its selected tab, as journal entries name tabs. */
function selectedTab(ctx: CallContext): string | undefined {
  const agent = ctx.agent();
  return agent.selected !== undefined ? agent.existingId(agent.selected) : undefined;
}

const netHandler = defineHandler(commands.net)({
  async run(ctx, args) {
    ctx.agent();
    const typeArg = args.type;
    const q = {
      limit: args.limit,
      ...(args.url !== undefined ? { url: args.url } : {}),
      ...(args.method !== undefined ? { method: args.method } : {}),
      ...(args.status !== undefined ? { status: args.status } : {}),
      ...(typeArg !== undefined
        ? {
            types: typeArg
              .split(",")
              .map((t) => t.trim())
              .filter(Boolean),
          }
        : {}),
      ...(args.after !== undefined ? { after: args.after } : {}),
    };
    const journal = ctx.agent().net.journal;
    const selected = selectedTab(ctx);
    // Bare: the selected tab's current document only (earlier pages' images are not this page's story).
    const bare =
      !args.all &&
      args.url === undefined &&
      args.method === undefined &&
      args.status === undefined &&
      typeArg === undefined &&
      args.after === undefined;
    const target = ctx.agent().selected;
    const doc = bare && selected !== undefined && target !== undefined ? journal.lastDocument(target) : undefined;
    const covers = doc && selected !== undefined ? { tab: selected, since: doc.id } : undefined;
    const r = journal.query(covers ? { ...q, tab: covers.tab, from: covers.since } : q);
    const out: ReplyOf<typeof commands.net.result> = {
      requests: r.entries.map((e) => summary(e, selected)),
      ...(r.truncated ? { total: r.total, truncated: true as const } : {}),
      ...(r.gap ? { gap: true as const } : {}),
      // A cursor for what comes next anywhere: the bare list shows this document's newest, and --after then gives every tab's.
      nextCursor: (covers ? journal.query({ limit: 1 }).nextCursor : r.nextCursor) ?? 0,
      ...(covers ? { covers } : {}),
    };
    return out;
  },
});

const COOKIE_HEADERS = /^(cookie|set-cookie)$/i;

/**
 * Secret values masked (their length kept). `given`: names of headers the agent gave to
 * 'net headers' (any name may carry a token); `cookies` (--values): Cookie and Set-Cookie shown.
 */
export function maskHeaders(
  h: Record<string, string> | undefined,
  given?: ReadonlySet<string>,
  all = false,
  cookies = false,
): Record<string, string> | undefined {
  if (!h) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    const secret =
      all || (SECRET_HEADERS.test(k) && !(cookies && COOKIE_HEADERS.test(k))) || given?.has(k.toLowerCase()) === true;
    out[k] = secret ? `*** (${v.length} chars)` : redactUrl(v);
  }
  return out;
}

/** The response's headers with its Set-Cookie lines (from the extra info), which the browser's own list leaves out. */
function responseHeadersOf(e: NetEntry): Record<string, string> | undefined {
  if (e.setCookie === undefined) return e.responseHeaders;
  const rest = Object.fromEntries(
    Object.entries(e.responseHeaders ?? {}).filter(([k]) => k.toLowerCase() !== "set-cookie"),
  );
  return { ...rest, "set-cookie": e.setCookie };
}

const netShowHandler = defineHandler(commands.netShow)({
  async run(ctx, args) {
    ctx.agent();
    const id = args.id;
    const e = ctx.agent().net.journal.get(id);
    if (!e)
      throw new BpError("invalid_argument", `No request ${id} in this agent's journal. Run 'bp net'.`, {
        context: { field: "id", id },
      });
    const save = args.save;
    const dest = save !== undefined ? resolveOutputPath(save, "body", place(ctx)) : undefined;
    // Lean: not the id given, nor when it started; the status text and MIME type only when
    // they add to the status code and the Content-Type header.
    const { id: _given, ...listed } = summary(e, selectedTab(ctx));
    const given = ctx.broker.agents.get(ctx.req.clientKey)?.netIfAny?.givenHeaders;
    const rq = maskHeaders(e.requestHeaders, given, false, args.values === true);
    const rs = maskHeaders(responseHeadersOf(e), given, false, args.values === true);
    const statusText = await ownStatusText(e.status, e.statusText);
    const mimeType = ownMimeType(e.mimeType, e.responseHeaders);
    const request: Shown["request"] = {
      ...listed,
      ...(statusText !== undefined ? { statusText } : {}),
      ...(mimeType !== undefined ? { mimeType } : {}),
      ...(rq ? { requestHeaders: rq } : {}),
      ...(rs ? { responseHeaders: rs } : {}),
      ...(e.postData !== undefined ? { postData: cutString(e.postData, POST_DATA_SHOWN) } : {}),
      ...(e.postData !== undefined && e.postData.length > POST_DATA_SHOWN ? { postDataLength: e.postData.length } : {}),
    };
    const out: Shown = { request };
    const browser = ctx.broker.browser;
    const session = browser && !browser.closed ? netSession(browser, e.targetId) : undefined;
    let body: { body: string; base64Encoded: boolean } | undefined;
    if (session && e.done && !e.error)
      body = await session.send("Network.getResponseBody", { requestId: e.requestId }).catch(() => undefined);
    if (!body) {
      if (dest !== undefined) {
        throw new BpError(
          "action_not_verified",
          `The body of request ${id} is not available (${e.done ? "not kept by the browser" : "still loading"}).`,
          { retryable: !e.done, context: { id, reason: e.done ? "body_unavailable" : "in_progress" } },
        );
      }
    } else if (dest !== undefined) {
      // Saving answers with the file result only: the body is in the file, not the reply.
      const bytes = body.base64Encoded ? Buffer.from(body.body, "base64") : Buffer.from(body.body, "utf8");
      const written = storeAndExport(
        storeFor(ctx.broker.paths.home),
        ctx.req.clientKey,
        "body",
        bytes,
        e.mimeType ?? "application/octet-stream",
        dest,
        { replace: args.force === true },
      );
      return written;
    } else {
      const bytes = body.base64Encoded ? Buffer.from(body.body, "base64") : Buffer.from(body.body, "utf8");
      const limit = args.limit;
      const textual = !body.base64Encoded;
      const shown = body.body;
      out.body = textual ? cutString(shown, limit) : shown.slice(0, limit);
      if (!textual) out.bodyEncoding = "base64";
      // Lean: the length only when the body shown is not all of it, or is base64 (bytes, not characters).
      if (!textual || shown.length > limit) out.bodyLength = textual ? body.body.length : bytes.length;
      if (shown.length > limit) out.bodyTruncated = true;
    }
    return out;
  },
});

const netClearHandler = defineHandler(commands.netClear)({
  async run(ctx) {
    const s = ctx.broker.agents.get(ctx.req.clientKey)?.netIfAny;
    const j = s?.journal;
    const n = j ? j.query({ limit: 1 }).total : 0;
    j?.clear();
    return { cleared: n };
  },
});

// ---------- rules ----------

/** Splits "A: 1 B: 2" (joined arguments) or newline-separated lines into headers. */
export function splitHeaders(text: string, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = text
    .split(/\r?\n/)
    .flatMap((line) => line.split(/\s+(?=[!#$%&'*+.^_`|~0-9A-Za-z-]+:\s)/))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const p of parts) {
    const h = parseHeader(p);
    if (!h) throw invalidArgument(field, "Headers look like 'Name: value' (a token, a colon, then the value).");
    out[h[0]] = h[1];
  }
  return out;
}

async function addRule(
  ctx: CallContext,
  make: (id: string, seq: number) => Rule,
): Promise<ReplyOf<typeof commands.netBlock.result>> {
  ctx.agent();
  const s = ctx.agent().net;
  if (s.rules.length >= MAX_RULES)
    throw new BpError("quota_exceeded", `An agent may hold at most ${MAX_RULES} network rules.`, {
      context: { quota: "rules", limit: MAX_RULES },
    });
  const seq = ++s.ruleSeq;
  const rule = make(`r${seq}`, seq);
  const used = s.rules.reduce((n, r) => n + ruleBytes(r), 0);
  if (used + ruleBytes(rule) > MAX_RULE_BYTES)
    throw new BpError("quota_exceeded", `This agent's rules would hold more than ${MAX_RULE_BYTES} bytes.`, {
      context: { quota: "rule_bytes", limitBytes: MAX_RULE_BYTES },
    });
  s.rules.push(rule);
  await coverControlledTabs(ctx.broker.browser, ctx.req.clientKey);
  const n = interceptingTabs(ctx.broker.browser, ctx.req.clientKey);
  // Lean: the rule's id, and the headers as they were parsed (joined arguments split on "Name:"); the type, pattern, status and body are what the agent sent.
  const { headers } = publicRuleShown(rule);
  return {
    rule: { id: rule.id, ...(headers && Object.keys(headers).length > 0 ? { headers } : {}) },
    ...(n > 0 ? { intercepting: n } : {}),
  };
}

/** Header values of secret-bearing headers are never echoed back; none of those given to 'net headers'. */
function publicRuleShown(r: Rule): PublicRule {
  const o = publicRule(r);
  if (o.headers) o.headers = maskHeaders(o.headers, undefined, r.type === "headers");
  return o;
}

function checkPattern(p: string): string {
  const t = p.trim();
  if (t === "" || t.length > 2048) throw invalidArgument("pattern", "Give a URL pattern of 1-2048 characters.");
  return t;
}

const netBlockHandler = defineHandler(commands.netBlock)({
  run: (ctx, args) => {
    const pattern = checkPattern(args.pattern);
    return addRule(ctx, (id, seq) => ({ id, seq, type: "block", pattern }));
  },
});

const netMockHandler = defineHandler(commands.netMock)({
  run: (ctx, args) => {
    const pattern = checkPattern(args.pattern);
    const bodyText = args.body;
    const file = args.file;
    let body: Uint8Array = new Uint8Array(0);
    if (bodyText !== undefined) body = Buffer.from(bodyText, "utf8");
    if (file !== undefined) {
      let st;
      try {
        st = statSync(file);
      } catch {
        throw invalidArgument("file", `No file at ${file}.`);
      }
      if (!st.isFile()) throw invalidArgument("file", `${file} is not a regular file.`);
      if (st.size > MAX_MOCK_BODY) throw invalidArgument("file", `A mock body is at most ${MAX_MOCK_BODY} bytes.`);
      body = readFileSync(file);
    }
    if (body.length > MAX_MOCK_BODY) throw invalidArgument("body", `A mock body is at most ${MAX_MOCK_BODY} bytes.`);
    const headerText = args.header;
    const headers = headerText !== undefined ? splitHeaders(headerText, "header") : {};
    const status = args.status;
    return addRule(ctx, (id, seq) => ({ id, seq, type: "mock", pattern, status, body, headers }));
  },
});

const netHeadersHandler = defineHandler(commands.netHeaders)({
  run: (ctx, args) => {
    const pattern = checkPattern(args.pattern);
    const given = args.headers;
    const text = args.stdin ? ctx.req.secret : given;
    if (text === undefined || text.trim() === "")
      throw invalidArgument("headers", "Give at least one 'Name: value' header.");
    const headers = splitHeaders(text, "headers");
    const s = ctx.agent().net;
    s.givenHeaders ??= new Set();
    for (const name of Object.keys(headers)) s.givenHeaders.add(name.toLowerCase());
    return addRule(ctx, (id, seq) => ({ id, seq, type: "headers", pattern, headers }));
  },
});

const netRulesHandler = defineHandler(commands.netRules)({
  async run(ctx) {
    ctx.agent();
    const rules = [...(ctx.broker.agents.get(ctx.req.clientKey)?.netIfAny?.rules ?? [])]
      .sort((a, b) => order(a) - order(b) || a.seq - b.seq)
      .map(publicRuleShown);
    const n = interceptingTabs(ctx.broker.browser, ctx.req.clientKey);
    return { rules, ...(n > 0 ? { intercepting: n } : {}) };
  },
});

/** Listing order = precedence: blocks, then mocks (newest wins), then header rules. */
function order(r: Rule): number {
  return r.type === "block" ? 0 : r.type === "mock" ? 1 : 2;
}

const netRemoveHandler = defineHandler(commands.netRemove)({
  async run(ctx, args) {
    const s = ctx.broker.agents.get(ctx.req.clientKey)?.netIfAny;
    const id = args.id;
    const all = args.all;
    let removed = 0;
    if (s) {
      const before = s.rules.length;
      s.rules = all ? [] : s.rules.filter((r) => r.id !== id);
      removed = before - s.rules.length;
    }
    if (!all && removed === 0) throw invalidArgument("id", `No rule ${id} for this agent. Run 'bp net rules'.`, { id });
    await syncAllTabs(ctx.broker.browser);
    const remaining = s?.rules.length ?? 0;
    return { removed, remaining };
  },
});

export const NET_HANDLERS: Handler[] = [
  ...ACCESS_HANDLERS,
  ...DOWNLOAD_HANDLERS,
  netHandler,
  netShowHandler,
  netBlockHandler,
  netMockHandler,
  netHeadersHandler,
  netRulesHandler,
  netRemoveHandler,
  netClearHandler,
];
