/**
 * Per-tab network plumbing, attached the first time any command opens a session to a tab.
 *
 * Each tracked tab gets a second flat CDP session of its own, so the journal's
 * Network.enable and the rules' Fetch.enable are never switched off by an action that
 * enables and disables Network on the tab's main session. Requests are journalled for the
 * agent controlling the tab when they happen; other tabs (the person's, other agents')
 * never reach an agent's journal. Fetch is on only while the controlling agent has rules or
 * credentials, and off again when the last one goes.
 */
import type { Protocol } from "devtools-protocol";
import { attachToTarget, type CdpSession } from "../../cdp/session.ts";
import type { BrowserConnection } from "../browser.ts";
import type { TargetRecord } from "../targets.ts";
import { installDownloads, watchTabDownloads } from "./downloads.ts";
import { boundHeaders, type NetEntry } from "./journal.ts";
import { decide, mergeHeaders } from "./rules.ts";
import { needsFetch, netFor, peekNet, type NetHost } from "./state.ts";

export type { NetHost } from "./state.ts";


interface TabNet {
  rec: TargetRecord;
  session: CdpSession;
  /** Fetch state currently applied: undefined = off. */
  fetch?: { auth: boolean };
  /** Fetch request ids whose auth challenge we already answered once. */
  authTried: Set<string>;
  started: Map<string, number>;
  /** Rule outcomes seen before the journal entry existed, by network request id. */
  early: Map<string, NetEntry["rule"]>;
  syncing: Promise<void>;
}

const POST_DATA_MAX = 65_536;
const tabs = new WeakMap<BrowserConnection, Map<string, TabNet>>();
/** Main-frame auth failures per tab since the last check, for the command that navigated. */
const authFailures = new WeakMap<TargetRecord, { url: string; realm: string }>();

/** Called once per connection: remembers tabs and hooks the browser-level download events. */
export function installNet(conn: BrowserConnection, host: NetHost): void {
  tabs.set(conn, new Map());
  installDownloads(conn, host);
  conn.onSession = (rec, main) => trackTab(conn, host, rec, main);
}

async function trackTab(conn: BrowserConnection, host: NetHost, rec: TargetRecord, main: CdpSession): Promise<void> {
  const table = tabs.get(conn);
  if (!table || table.has(rec.targetId)) return;
  watchTabDownloads(conn, host, rec, main);
  let session: CdpSession;
  try {
    session = await attachToTarget(conn.cdp, rec.targetId);
  } catch {
    return;
  }
  const tab: TabNet = { rec, session, authTried: new Set(), started: new Map(), early: new Map(), syncing: Promise.resolve() };
  table.set(rec.targetId, tab);
  session.onClose(() => {
    if (table.get(rec.targetId) === tab) table.delete(rec.targetId);
  });
  const owner = () => rec.controller;
  session.on("Network.requestWillBeSent", (p) => onRequest(host, tab, owner(), p));
  session.on("Network.responseReceived", (p) => {
    const e = entryOf(tab, owner(), p.requestId);
    if (!e) return;
    e.status = p.response.status;
    if (p.response.statusText) e.statusText = p.response.statusText;
    e.mimeType = p.response.mimeType;
    const h = boundHeaders(p.response.headers);
    if (h) e.responseHeaders = h;
    peekNet(owner() ?? "")?.journal.grew(e);
  });
  session.on("Network.loadingFinished", (p) => {
    const e = entryOf(tab, owner(), p.requestId);
    if (!e) return;
    e.size = p.encodedDataLength;
    finish(tab, e, p.timestamp);
  });
  session.on("Network.loadingFailed", (p) => {
    const e = entryOf(tab, owner(), p.requestId);
    if (!e) return;
    e.error = p.blockedReason === "inspector" || p.errorText === "net::ERR_BLOCKED_BY_CLIENT" ? "blocked" : p.canceled ? "canceled" : p.errorText;
    finish(tab, e, p.timestamp);
  });
  session.on("Fetch.requestPaused", (p) => void onPaused(tab, p));
  session.on("Fetch.authRequired", (p) => void onAuth(tab, p));
  await session.send("Network.enable", { maxPostDataSize: POST_DATA_MAX }).catch(() => undefined);
  await syncTab(tab);
}

function entryOf(tab: TabNet, owner: string | undefined, requestId: string): NetEntry | undefined {
  return owner === undefined ? undefined : peekNet(owner)?.journal.find(tab.rec.targetId, requestId);
}

function finish(tab: TabNet, e: NetEntry, ts: number): void {
  const start = tab.started.get(e.requestId);
  if (start !== undefined) e.durationMs = Math.max(0, Math.round((ts - start) * 1000));
  e.done = true;
}

function onRequest(host: NetHost, tab: TabNet, owner: string | undefined, p: Protocol.Network.RequestWillBeSentEvent): void {
  if (owner === undefined) return;
  const net = netFor(owner);
  if (p.redirectResponse) {
    const prev = net.journal.find(tab.rec.targetId, p.requestId);
    if (prev && !prev.done) {
      prev.status = p.redirectResponse.status;
      prev.mimeType = p.redirectResponse.mimeType;
      const h = boundHeaders(p.redirectResponse.headers);
      if (h) prev.responseHeaders = h;
      finish(tab, prev, p.timestamp);
      // The redirect hop's body is gone; its id must not fetch the final response's body.
      prev.requestId = `${p.requestId}:redirect:${prev.id}`;
    }
  }
  tab.started.set(p.requestId, p.timestamp);
  const headers = boundHeaders(p.request.headers);
  const e = net.journal.add({
    tab: host.tabId(owner, tab.rec.targetId),
    targetId: tab.rec.targetId,
    requestId: p.requestId,
    method: p.request.method,
    url: p.request.url,
    type: (p.type ?? "Other").toLowerCase(),
    startedAt: Date.now(),
    ...(headers ? { requestHeaders: headers } : {}),
    ...(p.request.postData !== undefined ? { postData: p.request.postData.slice(0, POST_DATA_MAX) } : {}),
  });
  const early = tab.early.get(p.requestId);
  if (early) {
    e.rule = early;
    tab.early.delete(p.requestId);
  }
}

function markRule(tab: TabNet, networkId: string | undefined, rule: NonNullable<NetEntry["rule"]>, headers?: Record<string, string>): void {
  if (networkId === undefined) return;
  const owner = tab.rec.controller;
  const e = owner === undefined ? undefined : peekNet(owner)?.journal.find(tab.rec.targetId, networkId);
  if (e) {
    e.rule = rule;
    if (headers && e.requestHeaders) e.requestHeaders = mergeHeaders(e.requestHeaders, headers);
  } else {
    tab.early.set(networkId, rule);
    if (tab.early.size > 500) tab.early.clear();
  }
}

async function onPaused(tab: TabNet, p: Protocol.Fetch.RequestPausedEvent): Promise<void> {
  const s = tab.session;
  const owner = tab.rec.controller;
  const rules = owner === undefined ? [] : (peekNet(owner)?.rules ?? []);
  const d = decide(rules, p.request.url);
  try {
    switch (d.action) {
      case "block":
        markRule(tab, p.networkId, { id: d.rule.id, action: "blocked" });
        await s.send("Fetch.failRequest", { requestId: p.requestId, errorReason: "BlockedByClient" });
        return;
      case "mock": {
        const r = d.rule;
        const headers = { "content-type": "text/plain; charset=utf-8", ...r.headers, "content-length": String(r.body.length) };
        markRule(tab, p.networkId, { id: r.id, action: "mocked" });
        await s.send("Fetch.fulfillRequest", {
          requestId: p.requestId,
          responseCode: r.status,
          responseHeaders: Object.entries(mergeHeaders({}, headers)).map(([name, value]) => ({ name, value })),
          body: Buffer.from(r.body).toString("base64"),
        });
        return;
      }
      case "headers": {
        const merged = mergeHeaders(p.request.headers as Record<string, string>, d.headers);
        markRule(tab, p.networkId, { id: d.rules.at(-1)?.id ?? "", action: "headers" }, d.headers);
        await s.send("Fetch.continueRequest", { requestId: p.requestId, headers: Object.entries(merged).map(([name, value]) => ({ name, value })) });
        return;
      }
      default:
        await s.send("Fetch.continueRequest", { requestId: p.requestId });
    }
  } catch {
    // The request went away (tab closed, navigation): nothing left to answer.
  }
}

/**
 * Answers an HTTP auth challenge with the controlling agent's credentials, once per
 * request: a second challenge for the same request means they were refused, so it is
 * cancelled (the page gets the 401) instead of retried forever, and the failure is kept
 * for the command that caused it.
 */
async function onAuth(tab: TabNet, p: Protocol.Fetch.AuthRequiredEvent): Promise<void> {
  const owner = tab.rec.controller;
  const auth = owner === undefined ? undefined : peekNet(owner)?.auth;
  let response: Protocol.Fetch.AuthChallengeResponse;
  if (!auth) response = { response: "Default" };
  else if (tab.authTried.has(p.requestId)) {
    response = { response: "CancelAuth" };
    if (p.resourceType === "Document") authFailures.set(tab.rec, { url: p.request.url, realm: p.authChallenge.realm });
  } else {
    tab.authTried.add(p.requestId);
    if (tab.authTried.size > 1000) tab.authTried.clear();
    response = { response: "ProvideCredentials", username: auth.username, password: auth.password };
  }
  await tab.session.send("Fetch.continueWithAuth", { requestId: p.requestId, authChallengeResponse: response }).catch(() => undefined);
}

/** The main-document auth failure since the last call, if any (consumed). */
export function takeAuthFailure(rec: TargetRecord): { url: string; realm: string } | undefined {
  const f = authFailures.get(rec);
  authFailures.delete(rec);
  return f;
}

/** Forgets an old failure before a command navigates, so only its own failure counts. */
export function clearAuthFailure(rec: TargetRecord): void {
  authFailures.delete(rec);
}

/** Applies the controlling agent's need for Fetch to one tab (serialised per tab). */
function syncTab(tab: TabNet): Promise<void> {
  const run = async () => {
    const want = needsFetch(tab.rec.controller);
    const have = tab.fetch;
    if (!want.on) {
      if (have) {
        delete tab.fetch;
        await tab.session.send("Fetch.disable").catch(() => undefined);
      }
      return;
    }
    if (have && have.auth === want.auth) return;
    tab.fetch = { auth: want.auth };
    await tab.session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }], handleAuthRequests: want.auth }).catch(() => {
      delete tab.fetch;
    });
  };
  tab.syncing = tab.syncing.then(run, run);
  return tab.syncing;
}

/** After rules, credentials or control changed: every tracked tab follows its controller. */
export async function syncAllTabs(conn: BrowserConnection | undefined): Promise<void> {
  if (!conn) return;
  const table = tabs.get(conn);
  if (!table) return;
  await Promise.all([...table.values()].map((t) => syncTab(t)));
}

/** How many tabs currently intercept requests for this agent. */
export function interceptingTabs(conn: BrowserConnection | undefined, key: string): number {
  const table = conn ? tabs.get(conn) : undefined;
  if (!table) return 0;
  let n = 0;
  for (const t of table.values()) if (t.fetch && t.rec.controller === key) n++;
  return n;
}

/** The tab's network session, for response bodies. */
export function netSession(conn: BrowserConnection, targetId: string): CdpSession | undefined {
  return tabs.get(conn)?.get(targetId)?.session;
}
