/**
 * Command handlers for cookies, auth, the request journal, network rules and downloads.
 * Everything is per client key: another agent's rules, requests, credentials and downloads
 * are never visible or addressable.
 */
import { readFileSync, statSync } from "node:fs";
import type { Protocol } from "devtools-protocol";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import { resolveOutputPath } from "../files.ts";
import { selectedTab } from "../context/tabs.ts";
import { arg, type CallContext, type Handler } from "../context/types.ts";
import { publicDownload, safeFileName } from "../net/downloads.ts";
import { type NetEntry } from "../net/journal.ts";
import { redactUrl } from "../net/redact.ts";
import { MAX_MOCK_BODY, MAX_RULE_BYTES, MAX_RULES, parseHeader, publicRule, ruleBytes, type Rule } from "../net/rules.ts";
import { netFor, peekNet } from "../net/state.ts";
import { interceptingTabs, netSession, syncAllTabs } from "../net/tracker.ts";
import { coverControlledTabs } from "../net/index.ts";
import { exportArtifact, storeAndExport, storeFor } from "../store/index.ts";

type R = Record<string, unknown>;
const MAX_COOKIE_VALUE = 4096;
const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)$/i;

const place = (ctx: CallContext) => ({ cwd: ctx.req.cwd, outputDir: ctx.req.outputDir });

function human(ctx: CallContext, out: R, text: () => string): R {
  if (ctx.req.mode === "human") out.text = text();
  return out;
}

// ---------- cookies ----------

function cookieMatchesDomain(cookieDomain: string, domain: string): boolean {
  const c = cookieDomain.replace(/^\./, "").toLowerCase();
  const d = domain.replace(/^\./, "").toLowerCase();
  return c === d || c.endsWith(`.${d}`) || d.endsWith(`.${c}`);
}

const cookies: Handler = {
  async run(ctx) {
    const domain = arg<string | undefined>(ctx, "domain");
    const withValues = arg<boolean>(ctx, "values");
    const limit = arg<number>(ctx, "limit");
    let list: Protocol.Network.Cookie[];
    if (domain !== undefined) {
      const d = domain.trim().replace(/^https?:\/\//i, "").split("/")[0] ?? "";
      if (!/^[a-z0-9.-]+(:\d+)?$/i.test(d)) throw invalidArgument("domain", "Give a domain such as example.com.");
      const browser = ctx.broker.requireBrowser();
      const sel = ctx.agent().selected ? selectedTab(ctx, { allowDialog: true }) : undefined;
      const all = (await browser.cdp.send("Storage.getCookies", sel?.rec.browserContextId ? { browserContextId: sel.rec.browserContextId } : {})).cookies;
      const host = d.split(":")[0] ?? d;
      list = all.filter((c) => cookieMatchesDomain(c.domain, host));
    } else {
      const sel = selectedTab(ctx, { allowDialog: true });
      const session = await sel.browser.session(sel.rec);
      list = (await session.send("Network.getCookies", { urls: [sel.rec.url] })).cookies;
    }
    const shown = list.slice(0, limit).map((c) => {
      const o: R = { name: c.name };
      if (withValues) o.value = c.value.length > MAX_COOKIE_VALUE ? `${c.value.slice(0, MAX_COOKIE_VALUE)}…` : c.value;
      else o.valueLength = c.value.length;
      o.domain = c.domain;
      o.path = c.path;
      if (!c.session && c.expires > 0) o.expires = new Date(c.expires * 1000).toISOString();
      if (c.httpOnly) o.httpOnly = true;
      if (c.secure) o.secure = true;
      if (c.sameSite) o.sameSite = c.sameSite;
      return o;
    });
    const out: R = { cookies: shown, total: list.length, ...(list.length > limit ? { truncated: true } : {}) };
    return human(ctx, out, () =>
      shown.length === 0
        ? "No cookies."
        : shown
            .map((c) => `${String(c.name)}${withValues ? `=${String(c.value)}` : ` (${String(c.valueLength)} chars)`}  ${String(c.domain)}${String(c.path)}${c.httpOnly ? "  HttpOnly" : ""}${c.secure ? "  Secure" : ""}${c.sameSite ? `  SameSite=${String(c.sameSite)}` : ""}`)
            .join("\n"),
    );
  },
};

// ---------- auth ----------

const auth: Handler = {
  mutating: true,
  async run(ctx) {
    const key = ctx.req.clientKey;
    const username = arg<string | undefined>(ctx, "username");
    if (arg<boolean>(ctx, "clear") || (username === undefined && !arg<boolean>(ctx, "password-stdin"))) {
      if (username !== undefined) throw invalidArgument("clear", "Give either a user name or --clear.");
      const s = peekNet(key);
      if (s) delete s.auth;
      await syncAllTabs(ctx.broker.browser);
      return human(ctx, { auth: "cleared" }, () => "✓ HTTP credentials cleared");
    }
    if (username === undefined) throw invalidArgument("username", "Give the user name: bp auth <username> --password-stdin.");
    if (!arg<boolean>(ctx, "password-stdin")) throw invalidArgument("password", "Pass the password on stdin with --password-stdin; it never goes on the command line.");
    const password = ctx.req.secret;
    if (password === undefined) throw invalidArgument("password", "No password arrived on stdin.");
    ctx.agent();
    netFor(key).auth = { username, password };
    await coverControlledTabs(ctx.broker.browser, key);
    const n = interceptingTabs(ctx.broker.browser, key);
    return human(ctx, { auth: "set", username, ...(n > 0 ? { intercepting: n } : {}) }, () => `✓ HTTP credentials set for ${username} (this agent's tabs only)`);
  },
};

// ---------- journal ----------

function summary(e: NetEntry): R {
  const o: R = { id: e.id, method: e.method, url: e.url, type: e.type };
  if (e.status !== undefined) o.status = e.status;
  if (e.size !== undefined) o.size = e.size;
  if (e.durationMs !== undefined) o.time = e.durationMs;
  if (e.error !== undefined) o.error = e.error;
  if (e.rule) o.rule = `${e.rule.action} ${e.rule.id}`;
  o.tab = e.tab;
  return o;
}

const netList: Handler = {
  async run(ctx) {
    ctx.agent();
    const typeArg = arg<string | undefined>(ctx, "type");
    const q = {
      limit: arg<number>(ctx, "limit"),
      ...(arg<string | undefined>(ctx, "url") !== undefined ? { url: arg<string>(ctx, "url") } : {}),
      ...(arg<string | undefined>(ctx, "method") !== undefined ? { method: arg<string>(ctx, "method") } : {}),
      ...(arg<string | undefined>(ctx, "status") !== undefined ? { status: arg<string>(ctx, "status") } : {}),
      ...(typeArg !== undefined ? { types: typeArg.split(",").map((t) => t.trim()).filter(Boolean) } : {}),
      ...(arg<number | undefined>(ctx, "after") !== undefined ? { after: arg<number>(ctx, "after") } : {}),
    };
    const r = netFor(ctx.req.clientKey).journal.query(q);
    const out: R = { requests: r.entries.map(summary), total: r.total, truncated: r.truncated, ...(r.gap ? { gap: true } : {}), nextCursor: r.nextCursor ?? 0 };
    return human(ctx, out, () => {
      const lines = r.entries.map((e) => `${String(e.id).padStart(4)} ${e.method.padEnd(6)} ${String(e.status ?? e.error ?? "…").padEnd(6)} ${e.type.padEnd(10)} ${e.durationMs !== undefined ? `${e.durationMs}ms`.padStart(7) : "".padStart(7)} ${e.url}`);
      if (r.gap) lines.unshift("(older requests after your cursor were dropped from the journal)");
      if (lines.length === 0) lines.push("No requests recorded.");
      return lines.join("\n");
    });
  },
};

function maskHeaders(h: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!h) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = SECRET_HEADERS.test(k) ? `*** (${v.length} chars)` : redactUrl(v);
  return out;
}

const netShow: Handler = {
  async run(ctx) {
    ctx.agent();
    const id = arg<number>(ctx, "id");
    const e = netFor(ctx.req.clientKey).journal.get(id);
    if (!e) throw new BpError("invalid_argument", `No request ${id} in this agent's journal. Run 'bp net'.`, { context: { field: "id", id } });
    const save = arg<string | undefined>(ctx, "save");
    const dest = save !== undefined ? resolveOutputPath(save, "body", place(ctx)) : undefined;
    const request: R = { ...summary(e), startedAt: new Date(e.startedAt).toISOString() };
    if (e.statusText) request.statusText = e.statusText;
    if (e.mimeType) request.mimeType = e.mimeType;
    const rq = maskHeaders(e.requestHeaders);
    const rs = maskHeaders(e.responseHeaders);
    if (rq) request.requestHeaders = rq;
    if (rs) request.responseHeaders = rs;
    if (e.postData !== undefined) request.postData = e.postData.slice(0, 4000);
    const out: R = { request };
    const browser = ctx.broker.browser;
    const session = browser && !browser.closed ? netSession(browser, e.targetId) : undefined;
    let body: { body: string; base64Encoded: boolean } | undefined;
    if (session && e.done && !e.error) body = await session.send("Network.getResponseBody", { requestId: e.requestId }).catch(() => undefined);
    if (!body) {
      if (dest !== undefined) {
        throw new BpError("action_not_verified", `The body of request ${id} is not available (${e.done ? "not kept by the browser" : "still loading"}).`, { retryable: !e.done, context: { id, reason: e.done ? "body_unavailable" : "in_progress" } });
      }
    } else if (dest !== undefined) {
      // Saving answers with the file result only: the body is in the file, not the reply.
      const bytes = body.base64Encoded ? Buffer.from(body.body, "base64") : Buffer.from(body.body, "utf8");
      const written = storeAndExport(storeFor(ctx.broker.paths.home), ctx.req.clientKey, "body", bytes, e.mimeType ?? "application/octet-stream", dest);
      return human(ctx, { ...written, id }, () => `✓ Body of request ${id} saved to ${written.file} (${written.sizeBytes} bytes)`);
    } else {
      const bytes = body.base64Encoded ? Buffer.from(body.body, "base64") : Buffer.from(body.body, "utf8");
      const limit = arg<number>(ctx, "limit");
      const textual = !body.base64Encoded;
      const shown = body.body;
      out.body = shown.length > limit ? shown.slice(0, limit) : shown;
      if (!textual) out.bodyEncoding = "base64";
      out.bodyLength = textual ? body.body.length : bytes.length;
      if (shown.length > limit) out.bodyTruncated = true;
    }
    return human(ctx, out, () => {
      const lines = [`${e.method} ${e.url}`, `status: ${String(e.status ?? e.error ?? "pending")}  type: ${e.type}${e.rule ? `  rule: ${e.rule.action} ${e.rule.id}` : ""}`];
      for (const [k, v] of Object.entries(rs ?? {})) lines.push(`  ${k}: ${v}`);
      if (out.body !== undefined) lines.push("", String(out.body), ...(out.bodyTruncated ? ["… [truncated]"] : []));
      return lines.join("\n");
    });
  },
};

const netClear: Handler = {
  mutating: true,
  async run(ctx) {
    const s = peekNet(ctx.req.clientKey);
    const j = s?.journal;
    const n = j ? j.query({ limit: 1 }).total : 0;
    j?.clear();
    return human(ctx, { cleared: n }, () => `✓ ${n} request(s) cleared`);
  },
};

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

async function addRule(ctx: CallContext, make: (id: string, seq: number) => Rule): Promise<R> {
  ctx.agent();
  const s = netFor(ctx.req.clientKey);
  if (s.rules.length >= MAX_RULES) throw new BpError("quota_exceeded", `An agent may hold at most ${MAX_RULES} network rules.`, { context: { quota: "rules", limit: MAX_RULES } });
  const seq = ++s.ruleSeq;
  const rule = make(`r${seq}`, seq);
  const used = s.rules.reduce((n, r) => n + ruleBytes(r), 0);
  if (used + ruleBytes(rule) > MAX_RULE_BYTES) throw new BpError("quota_exceeded", `This agent's rules would hold more than ${MAX_RULE_BYTES} bytes.`, { context: { quota: "rule_bytes", limitBytes: MAX_RULE_BYTES } });
  s.rules.push(rule);
  await coverControlledTabs(ctx.broker.browser, ctx.req.clientKey);
  const n = interceptingTabs(ctx.broker.browser, ctx.req.clientKey);
  return human(ctx, { rule: publicRuleShown(rule), ...(n > 0 ? { intercepting: n } : {}) }, () => `✓ Rule ${rule.id}: ${rule.type} ${rule.pattern}`);
}

/** Header values of secret-bearing headers are never echoed back. */
function publicRuleShown(r: Rule): R {
  const o = publicRule(r);
  if (o.headers) o.headers = maskHeaders(o.headers as Record<string, string>);
  return o;
}

function checkPattern(p: string): string {
  const t = p.trim();
  if (t === "" || t.length > 2048) throw invalidArgument("pattern", "Give a URL pattern of 1-2048 characters.");
  return t;
}

const netBlock: Handler = {
  mutating: true,
  run: (ctx) => {
    const pattern = checkPattern(arg<string>(ctx, "pattern"));
    return addRule(ctx, (id, seq) => ({ id, seq, type: "block", pattern }));
  },
};

const netMock: Handler = {
  mutating: true,
  run: (ctx) => {
    const pattern = checkPattern(arg<string>(ctx, "pattern"));
    const bodyText = arg<string | undefined>(ctx, "body");
    const file = arg<string | undefined>(ctx, "file");
    if (bodyText !== undefined && file !== undefined) throw invalidArgument("body", "Give --body or --file, not both.");
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
    const headerText = arg<string | undefined>(ctx, "header");
    const headers = headerText !== undefined ? splitHeaders(headerText, "header") : {};
    const status = arg<number>(ctx, "status");
    return addRule(ctx, (id, seq) => ({ id, seq, type: "mock", pattern, status, body, headers }));
  },
};

const netHeaders: Handler = {
  mutating: true,
  run: (ctx) => {
    const pattern = checkPattern(arg<string>(ctx, "pattern"));
    const given = arg<string | undefined>(ctx, "headers");
    if (given !== undefined && arg<boolean>(ctx, "stdin")) throw invalidArgument("headers", "Give headers as arguments or on stdin, not both.");
    const text = arg<boolean>(ctx, "stdin") ? ctx.req.secret : given;
    if (text === undefined || text.trim() === "") throw invalidArgument("headers", "Give at least one 'Name: value' header.");
    const headers = splitHeaders(text, "headers");
    return addRule(ctx, (id, seq) => ({ id, seq, type: "headers", pattern, headers }));
  },
};

const netRules: Handler = {
  async run(ctx) {
    ctx.agent();
    const rules = [...(peekNet(ctx.req.clientKey)?.rules ?? [])].sort((a, b) => order(a) - order(b) || a.seq - b.seq).map(publicRuleShown);
    const n = interceptingTabs(ctx.broker.browser, ctx.req.clientKey);
    return human(ctx, { rules, ...(n > 0 ? { intercepting: n } : {}) }, () => (rules.length === 0 ? "No network rules." : rules.map((r) => `${String(r.id)}  ${String(r.type).padEnd(7)} ${String(r.pattern)}`).join("\n")));
  },
};

/** Listing order = precedence: blocks, then mocks (newest wins), then header rules. */
function order(r: Rule): number {
  return r.type === "block" ? 0 : r.type === "mock" ? 1 : 2;
}

const netRemove: Handler = {
  mutating: true,
  async run(ctx) {
    const s = peekNet(ctx.req.clientKey);
    const id = arg<string | undefined>(ctx, "id");
    const all = arg<boolean>(ctx, "all");
    if ((id === undefined) === !all) throw invalidArgument("id", "Give a rule id or --all.");
    let removed = 0;
    if (s) {
      const before = s.rules.length;
      s.rules = all ? [] : s.rules.filter((r) => r.id !== id);
      removed = before - s.rules.length;
    }
    if (!all && removed === 0) throw invalidArgument("id", `No rule ${id} for this agent. Run 'bp net rules'.`, { id });
    await syncAllTabs(ctx.broker.browser);
    const remaining = s?.rules.length ?? 0;
    return human(ctx, { removed, remaining }, () => `✓ ${removed} rule(s) removed, ${remaining} left`);
  },
};

// ---------- downloads ----------

function expiresOf(ctx: CallContext, artifactId: string | undefined): string | undefined {
  if (!artifactId) return undefined;
  const store = storeFor(ctx.broker.paths.home);
  if (!store.has(ctx.req.clientKey, artifactId)) return undefined;
  return new Date(store.get(ctx.req.clientKey, artifactId).expiresAt).toISOString();
}

const downloadsList: Handler = {
  async run(ctx) {
    ctx.agent();
    const list = [...(peekNet(ctx.req.clientKey)?.downloads ?? [])].reverse().map((d) => {
      const o = publicDownload(d);
      const exp = expiresOf(ctx, d.artifactId);
      if (exp) o.expiresAt = exp;
      else if (d.artifactId) o.error = "expired";
      return o;
    });
    return human(ctx, { downloads: list }, () =>
      list.length === 0 ? "No downloads." : list.map((d) => `${String(d.id).padEnd(5)} ${String(d.state).padEnd(11)} ${String(d.fileName)}${d.sizeBytes !== undefined ? `  ${String(d.sizeBytes)} bytes` : ""}${d.error ? `  (${String(d.error)})` : ""}`).join("\n"),
    );
  },
};

const downloadExport: Handler = {
  async run(ctx) {
    ctx.agent();
    // A bare number is upstream's index form: 1 is dl1.
    const given = arg<string>(ctx, "id");
    const id = /^\d+$/.test(given) ? `dl${given}` : given;
    const d = peekNet(ctx.req.clientKey)?.downloads.find((x) => x.id === id);
    if (!d) throw new BpError("artifact_not_found", `No download ${id} for this agent. Run 'bp downloads'.`, { context: { field: "id", id } });
    if (d.state === "in_progress") throw new BpError("artifact_not_found", `Download ${id} is still in progress.`, { retryable: true, context: { field: "id", id, reason: "in_progress" }, hint: "Run 'bp wait --download' first." });
    if (!d.artifactId) {
      throw new BpError(d.error === "quota_exceeded" ? "quota_exceeded" : "artifact_not_found", `Download ${id} has no stored copy (${d.error ?? d.state}).`, { context: { field: "id", id, reason: d.error ?? d.state } });
    }
    const store = storeFor(ctx.broker.paths.home);
    const item = store.get(ctx.req.clientKey, d.artifactId, "id");
    const file = arg<string | undefined>(ctx, "file");
    const dest = resolveOutputPath(file, safeFileName(d.fileName), place(ctx));
    const written = exportArtifact(store, item, dest, { noClobber: file === undefined });
    return human(ctx, { ...written, id }, () => `✓ Download ${id} saved to ${written.file} (${written.sizeBytes} bytes)`);
  },
};

export const NET_HANDLERS: Record<string, Handler> = {
  cookies,
  auth,
  net: netList,
  "net show": netShow,
  "net block": netBlock,
  "net mock": netMock,
  "net headers": netHeaders,
  "net rules": netRules,
  "net remove": netRemove,
  "net clear": netClear,
  downloads: downloadsList,
  download: downloadExport,
};
