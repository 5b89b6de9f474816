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
import { attachToTarget, CdpSession } from "../../cdp/session.ts";
import type { BrowserConnection } from "../browser.ts";
import type { TargetRecord } from "../targets.ts";
import { installDownloads, watchTabDownloads } from "./downloads.ts";
import { OpenIds, TabEnds } from "./ends.ts";
import { watchConsole } from "./console.ts";
import { boundHeaders, type NetEntry } from "./journal.ts";
import { rememberRequests } from "../settle/requests/polling.ts";
import { decide, mergeHeaders } from "./rules.ts";
import { credentialsFor, needsFetch, netFor, peekNet, type NetHost } from "./state.ts";
import { cutString } from "../../shared/page-strings.ts";
import { policyStops } from "../policy/net.ts";

export type { NetHost } from "./state.ts";


interface Wired {
  session: CdpSession;
  /** Fetch state applied to this session: undefined = off. */
  fetch?: { auth: boolean };
}

interface TabNet {
  rec: TargetRecord;
  /**
   * The tab's own network session and one per out-of-process iframe inside it, by scope
   * ("<tab>" or "<tab>><frame target>"): an entry's scope names the session holding its body.
   */
  sessions: Map<string, Wired>;
  /** Fetch request ids whose auth challenge we already answered once. */
  authTried: Set<string>;
  started: Map<string, number>;
  /** Rule outcomes seen before the journal entry existed, by network request id. */
  early: Map<string, NetEntry["rule"]>;
  syncing: Promise<void>;
  /** Settles once the tab's auto-attach is on: the frames it had then are wired by that time. */
  framesReady: Promise<unknown>;
  /** The main frame's latest navigation request, and the document generation it starts. */
  mainDoc?: { requestId: string; gen: number };
  ends: TabEnds;
}

const POST_DATA_MAX = 65_536;
/** Set-Cookie lines kept per response (the journal is bounded in bytes too). */
const SET_COOKIE_MAX = 8_192;
const BODY_BUFFER_TOTAL = 32 * 1024 * 1024;
const BODY_BUFFER_ONE = 8 * 1024 * 1024;
/** Longest the first session of a tab waits for the network plumbing. */
const SETUP_MS = 2_000;
/** Out-of-process iframes nested deeper than this are not followed. */
const MAX_FRAME_DEPTH = 3;
const tabs = new WeakMap<BrowserConnection, Map<string, TabNet>>();
/**
 * Who follows the out-of-process frames of a tab (an action's watch), by connection and tab:
 * kept apart from the tab's record so a watch can start before the tab is tracked.
 */
const frameWatchers = new WeakMap<BrowserConnection, Map<string, Set<(s: CdpSession) => void>>>();
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
  if (!table) return;
  // Per main session: a tab whose session was opened again still reports its downloads.
  watchTabDownloads(conn, host, rec, main);
  if (table.has(rec.targetId)) return;
  let session: CdpSession;
  try {
    session = await attachToTarget(conn.cdp, rec.targetId, { timeoutMs: SETUP_MS });
  } catch {
    return;
  }
  const tab: TabNet = { rec, sessions: new Map(), authTried: new Set(), started: new Map(), early: new Map(), syncing: Promise.resolve(), framesReady: Promise.resolve(), ends: new TabEnds(rec.targetId, () => journalOf(rec.controller)) };
  table.set(rec.targetId, tab);
  session.onClose(() => {
    if (table.get(rec.targetId) === tab) table.delete(rec.targetId);
  });
  await wire(conn, host, tab, session, rec.targetId, 0);
}

/**
 * Journal and rules on one session (the tab's, or an out-of-process iframe's), then the same
 * for the iframes it starts: they are attached paused, set up, then let run, so their first
 * requests are seen too.
 */
async function wire(conn: BrowserConnection, host: NetHost, tab: TabNet, session: CdpSession, scope: string, depth: number, parent?: string): Promise<void> {
  const wired: Wired = { session };
  tab.sessions.set(scope, wired);
  session.onClose(() => {
    if (tab.sessions.get(scope) === wired) tab.sessions.delete(scope);
  });
  const owner = () => tab.rec.controller;
  if (depth > 0) {
    // Before the frame runs: its first requests reach an action watching the tab, and its
    // own polling is remembered from its start (net/polling.ts).
    rememberRequests(session);
    for (const fn of frameWatchers.get(conn)?.get(tab.rec.targetId) ?? []) fn(session);
  }
  // A frame's document starts in its parent's session (its entry is there) and ends in the
  // frame's; one that moved into another process ends there. Navigation ids are unique
  // across the browser, other requests' only per process.
  const find = (requestId: string, ended = false) => {
    const moved = tab.ends.movedDoc(requestId, ended);
    const e = entryOf(scope, owner(), requestId);
    if (e) return e;
    const doc = parent === undefined ? undefined : entryOf(parent, owner(), requestId);
    return doc?.type === "document" ? doc : moved;
  };
  // Requests of a frame's session not ended yet: a frame that goes ends none of them (the
  // tab's own session lives as long as the tab, whose stale entries endStale ends).
  const running = new OpenIds((id) => entryOf(scope, owner(), id)?.done === false);
  const frameId = session.targetId;
  if (depth > 0 && frameId !== undefined) {
    session.onClose(() => {
      tab.ends.frameClosed(frameId, scope, running);
      running.clear();
    });
  }
  session.on("Network.requestWillBeSent", (p) => {
    if (depth > 0) running.add(p.requestId);
    onRequest(host, tab, scope, owner(), p);
  });
  session.on("Network.responseReceived", (p) => {
    const e = find(p.requestId);
    if (!e) return;
    e.status = p.response.status;
    if (p.response.statusText) e.statusText = p.response.statusText;
    e.mimeType = p.response.mimeType;
    const h = boundHeaders(p.response.headers);
    if (h) e.responseHeaders = h;
    peekNet(owner() ?? "")?.journal.grew(e);
  });
  // Set-Cookie is only in the response's extra info (the raw headers the network stack saw).
  session.on("Network.responseReceivedExtraInfo", (p) => {
    const e = find(p.requestId);
    if (!e) return;
    const lines = Object.entries(p.headers).filter(([k]) => k.toLowerCase() === "set-cookie").map(([, v]) => String(v));
    if (lines.length > 0) e.setCookie = cutString(lines.join("\n"), SET_COOKIE_MAX);
  });
  session.on("Network.loadingFinished", (p) => {
    running.delete(p.requestId);
    tab.ends.ended(p.requestId);
    const e = find(p.requestId, true);
    if (!e) return;
    e.size = p.encodedDataLength;
    finish(tab, e, p.timestamp);
    if (depth === 0 && tab.mainDoc?.requestId === p.requestId) tab.ends.endStale(tab.mainDoc.gen);
  });
  session.on("Network.loadingFailed", (p) => {
    running.delete(p.requestId);
    tab.ends.ended(p.requestId);
    const e = find(p.requestId, true);
    if (!e) return;
    e.error = p.blockedReason === "inspector" || p.errorText === "net::ERR_BLOCKED_BY_CLIENT" ? "blocked" : p.canceled ? "canceled" : p.errorText;
    finish(tab, e, p.timestamp);
  });
  session.on("Fetch.requestPaused", (p) => void onPaused(tab, session, scope, p, host));
  session.on("Fetch.authRequired", (p) => void onAuth(tab, session, p));
  if (depth < MAX_FRAME_DEPTH) {
    session.on("Target.attachedToTarget", (p) => {
      const child = new CdpSession(conn.cdp, p.sessionId, p.targetInfo.targetId);
      if (p.targetInfo.type !== "iframe") {
        // A dedicated worker: Chrome holds it for this session (whatever the filter says), so it
        // is let run and left at once; the journal does not follow workers. The detach goes to
        // the session that auto-attached it: the browser's own handler does not know the child.
        const leave = () => session.send("Target.detachFromTarget", { sessionId: p.sessionId }).catch(() => undefined);
        void child.send("Runtime.runIfWaitingForDebugger").catch(() => undefined).finally(leave);
        return;
      }
      void wire(conn, host, tab, child, `${tab.rec.targetId}>${p.targetInfo.targetId}`, depth + 1, scope).finally(() => child.send("Runtime.runIfWaitingForDebugger").catch(() => undefined));
    });
  }
  // The console log rides on this session too: it lives as long as the tab (net/console.ts).
  const consoleOn = watchConsole(session, tab.rec.targetId, (e) => {
    const key = owner();
    if (key !== undefined && !host.personal?.(tab.rec.targetId)) netFor(key).console.add(e);
  }, SETUP_MS);
  // Bounded: a page blocked by a dialog answers renderer-side calls only later, and the
  // command that opened the session must not wait for that.
  // Bodies are kept for 'bp net show', within bounds fit for a person's own browser.
  await session.send("Network.enable", { maxPostDataSize: POST_DATA_MAX, maxTotalBufferSize: BODY_BUFFER_TOTAL, maxResourceBufferSize: BODY_BUFFER_ONE }, { timeoutMs: SETUP_MS }).catch(() => undefined);
  await consoleOn;
  await Promise.race([syncSession(tab, wired), Bun.sleep(SETUP_MS)]);
  if (depth < MAX_FRAME_DEPTH) {
    // Not awaited: the command that opened the tab need not wait for it, and no iframe can
    // start before Chrome has it.
    // Dedicated workers are in the filter because Chrome holds them too, and only a worker it
    // reports can be let run; shared and service workers are not held.
    const on = session.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: "iframe" }, { type: "worker" }] }, { timeoutMs: SETUP_MS }).catch(() => undefined);
    // Chrome attaches the frames already there before it answers.
    if (depth === 0) tab.framesReady = on;
  }
}

function journalOf(owner: string | undefined) {
  return owner === undefined ? undefined : peekNet(owner)?.journal;
}

function entryOf(scope: string, owner: string | undefined, requestId: string): NetEntry | undefined {
  return journalOf(owner)?.find(scope, requestId);
}

function finish(tab: TabNet, e: NetEntry, ts: number): void {
  const start = tab.started.get(e.requestId);
  if (start !== undefined) e.durationMs = Math.max(0, Math.round((ts - start) * 1000));
  e.done = true;
}

function onRequest(host: NetHost, tab: TabNet, scope: string, owner: string | undefined, p: Protocol.Network.RequestWillBeSentEvent): void {
  const gen = tab.ends.began(p, p.type === "Document" && p.frameId === tab.rec.targetId && scope === tab.rec.targetId && !p.redirectResponse);
  if (gen !== undefined) tab.mainDoc = { requestId: p.requestId, gen };
  if (owner === undefined) return;
  const net = netFor(owner);
  if (p.redirectResponse) {
    const prev = net.journal.find(scope, p.requestId);
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
  // Rules still apply to the person's requests; only the journal leaves them out.
  if (host.personal?.(tab.rec.targetId)) return;
  tab.started.set(p.requestId, p.timestamp);
  const headers = boundHeaders(p.request.headers);
  const e = net.journal.add({
    tab: host.tabId(owner, tab.rec.targetId),
    targetId: scope,
    requestId: p.requestId,
    method: p.request.method,
    url: p.request.url,
    type: (p.type ?? "Other").toLowerCase(),
    startedAt: Date.now(),
    ...(headers ? { requestHeaders: headers } : {}),
    ...(p.request.postData !== undefined ? { postData: cutString(p.request.postData, POST_DATA_MAX) } : {}),
  });
  tab.ends.journalled(e, p, scope);
  const early = tab.early.get(p.requestId);
  if (early) {
    e.rule = early;
    tab.early.delete(p.requestId);
  }
}

function markRule(tab: TabNet, scope: string, networkId: string | undefined, rule: NonNullable<NetEntry["rule"]>, headers?: Record<string, string>): void {
  if (networkId === undefined) return;
  const owner = tab.rec.controller;
  const e = owner === undefined ? undefined : peekNet(owner)?.journal.find(scope, networkId);
  if (e) {
    e.rule = rule;
    if (headers && e.requestHeaders) e.requestHeaders = mergeHeaders(e.requestHeaders, headers);
  } else {
    tab.early.set(networkId, rule);
    if (tab.early.size > 500) tab.early.clear();
  }
}

async function onPaused(tab: TabNet, s: CdpSession, scope: string, p: Protocol.Fetch.RequestPausedEvent, host: NetHost): Promise<void> {
  const owner = tab.rec.controller;
  // The host policy first: no agent rule can let through what it stops (src/broker/policy/net.ts).
  // It narrows what agents do; a person who has the tab (handoff) browses freely.
  if (!host.personal?.(tab.rec.targetId) && await policyStops(tab.rec, s, p, (rule) => markRule(tab, scope, p.networkId, rule))) return;
  const rules = owner === undefined ? [] : (peekNet(owner)?.rules ?? []);
  const d = decide(rules, p.request.url);
  try {
    switch (d.action) {
      case "block":
        markRule(tab, scope, p.networkId, { id: d.rule.id, action: "blocked" });
        await s.send("Fetch.failRequest", { requestId: p.requestId, errorReason: "BlockedByClient" });
        return;
      case "mock": {
        const r = d.rule;
        // A header the rule gives replaces the default by name, whatever its case (not both, joined).
        const headers = mergeHeaders(mergeHeaders({ "content-type": "text/plain; charset=utf-8" }, r.headers), { "content-length": String(r.body.length) });
        markRule(tab, scope, p.networkId, { id: r.id, action: "mocked" });
        await s.send("Fetch.fulfillRequest", {
          requestId: p.requestId,
          responseCode: r.status,
          responseHeaders: Object.entries(headers).map(([name, value]) => ({ name, value })),
          body: Buffer.from(r.body).toString("base64"),
        });
        return;
      }
      case "headers": {
        const merged = mergeHeaders(p.request.headers as Record<string, string>, d.headers);
        markRule(tab, scope, p.networkId, { id: d.rules.at(-1)?.id ?? "", action: "headers" }, d.headers);
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
async function onAuth(tab: TabNet, session: CdpSession, p: Protocol.Fetch.AuthRequiredEvent): Promise<void> {
  const owner = tab.rec.controller;
  const auth = owner === undefined ? undefined : credentialsFor(peekNet(owner), p.request.url);
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
  await session.send("Fetch.continueWithAuth", { requestId: p.requestId, authChallengeResponse: response }).catch(() => undefined);
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

/** Applies the controlling agent's need for Fetch to every session of one tab (serialised per tab). */
function syncTab(tab: TabNet): Promise<void> {
  const run = async () => {
    await Promise.all([...tab.sessions.values()].map((w) => applyFetch(tab, w)));
  };
  tab.syncing = tab.syncing.then(run, run);
  return tab.syncing;
}

function syncSession(tab: TabNet, w: Wired): Promise<void> {
  const run = () => applyFetch(tab, w);
  tab.syncing = tab.syncing.then(run, run);
  return tab.syncing;
}

async function applyFetch(tab: TabNet, w: Wired): Promise<void> {
  const want = needsFetch(tab.rec.controller);
  const have = w.fetch;
  if (!want.on) {
    if (have) {
      delete w.fetch;
      await w.session.send("Fetch.disable").catch(() => undefined);
    }
    return;
  }
  if (have && have.auth === want.auth) return;
  w.fetch = { auth: want.auth };
  await w.session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }], handleAuthRequests: want.auth }).catch(() => {
    delete w.fetch;
  });
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
  for (const t of table.values()) if (t.rec.controller === key && t.sessions.get(t.rec.targetId)?.fetch) n++;
  return n;
}

/**
 * Follows the network sessions of a tab's out-of-process iframes (network events on, first
 * requests seen, their polling remembered from the frame's start): `fn` gets those wired so
 * far at once, and each one wired later until the returned function is called.
 */
export function watchFrameNet(conn: BrowserConnection, targetId: string, fn: (s: CdpSession) => void): () => void {
  let byTab = frameWatchers.get(conn);
  if (!byTab) {
    byTab = new Map();
    frameWatchers.set(conn, byTab);
  }
  const set = byTab.get(targetId) ?? new Set();
  byTab.set(targetId, set);
  set.add(fn);
  for (const [scope, w] of tabs.get(conn)?.get(targetId)?.sessions ?? []) if (scope !== targetId && !w.session.closed) fn(w.session);
  return () => {
    set.delete(fn);
    if (set.size === 0 && byTab.get(targetId) === set) byTab.delete(targetId);
  };
}

/** Settles once the frames a tracked tab had when it was tracked are followed (at once for a tab not tracked). */
export function frameNetReady(conn: BrowserConnection, targetId: string): Promise<unknown> {
  return tabs.get(conn)?.get(targetId)?.framesReady ?? Promise.resolve();
}

/** The document loaders a tracked tab has seen (its own and its frames'), so far. */
export function tabLoaders(conn: BrowserConnection, targetId: string): string[] {
  return tabs.get(conn)?.get(targetId)?.ends.loadersSeen() ?? [];
}

/** The network session an entry's scope names, for response bodies. */
export function netSession(conn: BrowserConnection, scope: string): CdpSession | undefined {
  return tabs.get(conn)?.get(scope.split(">")[0] ?? scope)?.sessions.get(scope)?.session;
}
