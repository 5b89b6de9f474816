/**
 * Per-tab network plumbing on a second session of the tab (docs/architecture.md, "Two CDP
 * sessions per tab"): requests are journalled for the agent controlling the tab; Fetch is on
 * only while that agent has rules or credentials.
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
import { credentialsFor, needsFetch, type NetHost } from "./state.ts";
import { connNet, openConnNet, type TabNet, type Wired } from "./conn.ts";
import { cutString } from "../../shared/page-strings.ts";
import { policyStops } from "../policy/net.ts";
import { atResponse, capturesDownloads, fetchPatterns, onResponsePaused } from "./remote-downloads.ts";

export type { NetHost } from "./state.ts";

const POST_DATA_MAX = 65_536;
/** Set-Cookie lines kept per response (the journal is bounded in bytes too). */
const SET_COOKIE_MAX = 8_192;
const BODY_BUFFER_TOTAL = 32 * 1024 * 1024;
const BODY_BUFFER_ONE = 8 * 1024 * 1024;
/** Longest the first session of a tab waits for the network plumbing. */
const SETUP_MS = 2_000;
/** Out-of-process iframes nested deeper than this are not followed. */
const MAX_FRAME_DEPTH = 3;
/** Called once per connection: remembers tabs and hooks the browser-level download events. */
export function installNet(conn: BrowserConnection, host: NetHost): void {
  openConnNet(conn, host);
  installDownloads(conn, host);
  conn.onSession = (rec, main) => trackTab(conn, host, rec, main);
}

async function trackTab(conn: BrowserConnection, host: NetHost, rec: TargetRecord, main: CdpSession): Promise<void> {
  const table = connNet(conn)?.tabs;
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
  const tab: TabNet = {
    rec,
    sessions: new Map(),
    authTried: new Set(),
    started: new Map(),
    early: new Map(),
    syncing: Promise.resolve(),
    framesReady: Promise.resolve(),
    ends: new TabEnds(rec.targetId, () => journalOf(host, rec.controller)),
    remote: conn.info.source === "remote",
  };
  table.set(rec.targetId, tab);
  session.onClose(() => {
    if (table.get(rec.targetId) === tab) table.delete(rec.targetId);
  });
  await wire(conn, host, tab, session, rec.targetId, 0);
}

/** Journal and rules on one session, then on the iframes it starts (paused until set up: their first requests count). */
async function wire(
  conn: BrowserConnection,
  host: NetHost,
  tab: TabNet,
  session: CdpSession,
  scope: string,
  depth: number,
  parent?: string,
): Promise<void> {
  const wired: Wired = { session };
  tab.sessions.set(scope, wired);
  session.onClose(() => {
    if (tab.sessions.get(scope) === wired) tab.sessions.delete(scope);
  });
  const owner = () => tab.rec.controller;
  if (depth > 0) {
    // Before the frame runs: an action's watch sees its first requests.
    rememberRequests(session);
    for (const fn of connNet(conn)?.frameWatchers.get(tab.rec.targetId) ?? []) fn(session);
  }
  // A frame's document starts in its parent's session and ends in the frame's (navigation ids are browser-wide).
  const find = (requestId: string, ended = false) => {
    const moved = tab.ends.movedDoc(requestId, ended);
    const e = entryOf(host, scope, owner(), requestId);
    if (e) return e;
    const doc = parent === undefined ? undefined : entryOf(host, parent, owner(), requestId);
    return doc?.type === "document" ? doc : moved;
  };
  // A frame that goes ends none of its open requests: they are ended here.
  const running = new OpenIds((id) => entryOf(host, scope, owner(), id)?.done === false);
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
    host.peekNet(owner() ?? "")?.journal.grew(e);
  });
  // Set-Cookie is only in the response's extra info (the raw headers the network stack saw).
  session.on("Network.responseReceivedExtraInfo", (p) => {
    const e = find(p.requestId);
    if (!e) return;
    const lines = Object.entries(p.headers)
      .filter(([k]) => k.toLowerCase() === "set-cookie")
      .map(([, v]) => String(v));
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
    e.error =
      p.blockedReason === "inspector" || p.errorText === "net::ERR_BLOCKED_BY_CLIENT"
        ? "blocked"
        : p.canceled
          ? "canceled"
          : p.errorText;
    finish(tab, e, p.timestamp);
  });
  session.on("Fetch.requestPaused", (p) => void onPaused(tab, session, scope, p, host));
  session.on("Fetch.authRequired", (p) => void onAuth(host, tab, session, p));
  if (depth < MAX_FRAME_DEPTH) {
    session.on("Target.attachedToTarget", (p) => {
      const child = new CdpSession(conn.cdp, p.sessionId, p.targetInfo.targetId);
      if (p.targetInfo.type !== "iframe") {
        // A dedicated worker Chrome holds for us: let run and left (detached via its parent).
        const leave = () => session.send("Target.detachFromTarget", { sessionId: p.sessionId }).catch(() => undefined);
        void child
          .send("Runtime.runIfWaitingForDebugger")
          .catch(() => undefined)
          .finally(leave);
        return;
      }
      void wire(conn, host, tab, child, `${tab.rec.targetId}>${p.targetInfo.targetId}`, depth + 1, scope).finally(() =>
        child.send("Runtime.runIfWaitingForDebugger").catch(() => undefined),
      );
    });
  }
  const consoleOn = watchConsole(
    session,
    tab.rec.targetId,
    (e) => {
      const key = owner();
      if (key !== undefined && !host.personal?.(tab.rec.targetId)) host.net(key)?.console.add(e);
    },
    SETUP_MS,
  );
  // Bounded: a page blocked by a dialog answers only later.
  await session
    .send(
      "Network.enable",
      { maxPostDataSize: POST_DATA_MAX, maxTotalBufferSize: BODY_BUFFER_TOTAL, maxResourceBufferSize: BODY_BUFFER_ONE },
      { timeoutMs: SETUP_MS },
    )
    .catch(() => undefined);
  await consoleOn;
  await Promise.race([syncSession(host, tab, wired), Bun.sleep(SETUP_MS)]);
  if (depth < MAX_FRAME_DEPTH) {
    // Not awaited: no iframe starts before Chrome has it. Listed workers are the ones it holds for us.
    const on = session
      .send(
        "Target.setAutoAttach",
        {
          autoAttach: true,
          waitForDebuggerOnStart: true,
          flatten: true,
          filter: [{ type: "iframe" }, { type: "worker" }],
        },
        { timeoutMs: SETUP_MS },
      )
      .catch(() => undefined);
    if (depth === 0) tab.framesReady = on;
  }
}

function journalOf(host: NetHost, owner: string | undefined) {
  return owner === undefined ? undefined : host.peekNet(owner)?.journal;
}

function entryOf(host: NetHost, scope: string, owner: string | undefined, requestId: string): NetEntry | undefined {
  return journalOf(host, owner)?.find(scope, requestId);
}

function finish(tab: TabNet, e: NetEntry, ts: number): void {
  const start = tab.started.get(e.requestId);
  if (start !== undefined) e.durationMs = Math.max(0, Math.round((ts - start) * 1000));
  e.done = true;
}

function onRequest(
  host: NetHost,
  tab: TabNet,
  scope: string,
  owner: string | undefined,
  p: Protocol.Network.RequestWillBeSentEvent,
): void {
  const gen = tab.ends.began(
    p,
    p.type === "Document" && p.frameId === tab.rec.targetId && scope === tab.rec.targetId && !p.redirectResponse,
  );
  if (gen !== undefined) tab.mainDoc = { requestId: p.requestId, gen };
  const net = owner === undefined ? undefined : host.net(owner);
  if (owner === undefined || !net) return;
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
    e.rule = early.rule;
    // Fetch can pause a request before the network announces it: the headers the rule set are still what was sent.
    if (early.headers) e.requestHeaders = mergeHeaders(e.requestHeaders ?? {}, early.headers);
    tab.early.delete(p.requestId);
  }
}

function markRule(
  host: NetHost,
  tab: TabNet,
  scope: string,
  networkId: string | undefined,
  rule: NonNullable<NetEntry["rule"]>,
  headers?: Record<string, string>,
): void {
  if (networkId === undefined) return;
  const owner = tab.rec.controller;
  const e = owner === undefined ? undefined : host.peekNet(owner)?.journal.find(scope, networkId);
  if (e) {
    e.rule = rule;
    if (headers && e.requestHeaders) e.requestHeaders = mergeHeaders(e.requestHeaders, headers);
  } else {
    tab.early.set(networkId, { rule, headers });
    if (tab.early.size > 500) tab.early.clear();
  }
}

async function onPaused(
  tab: TabNet,
  s: CdpSession,
  scope: string,
  p: Protocol.Fetch.RequestPausedEvent,
  host: NetHost,
): Promise<void> {
  if (atResponse(p)) return onResponsePaused(host, tab, s, p);
  const owner = tab.rec.controller;
  // The host policy first (policy/net.ts); a person who has the tab browses freely.
  if (
    !host.personal?.(tab.rec.targetId) &&
    (await policyStops(tab.rec, s, p, (rule) => markRule(host, tab, scope, p.networkId, rule)))
  )
    return;
  const rules = owner === undefined ? [] : (host.peekNet(owner)?.rules ?? []);
  const d = decide(rules, p.request.url);
  try {
    switch (d.action) {
      case "block":
        markRule(host, tab, scope, p.networkId, { id: d.rule.id, action: "blocked" });
        await s.send("Fetch.failRequest", { requestId: p.requestId, errorReason: "BlockedByClient" });
        return;
      case "mock": {
        const r = d.rule;
        // A header the rule gives replaces the default by name, whatever its case (not both, joined).
        const headers = mergeHeaders(mergeHeaders({ "content-type": "text/plain; charset=utf-8" }, r.headers), {
          "content-length": String(r.body.length),
        });
        markRule(host, tab, scope, p.networkId, { id: r.id, action: "mocked" });
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
        markRule(host, tab, scope, p.networkId, { id: d.rules.at(-1)?.id ?? "", action: "headers" }, d.headers);
        await s.send("Fetch.continueRequest", {
          requestId: p.requestId,
          headers: Object.entries(merged).map(([name, value]) => ({ name, value })),
        });
        return;
      }
      default:
        await s.send("Fetch.continueRequest", { requestId: p.requestId });
    }
  } catch {
    // The request went away (tab closed, navigation): nothing left to answer.
  }
}

/** Answers an auth challenge once per request: a second one means refused, so it is cancelled and kept for the command. */
async function onAuth(
  host: NetHost,
  tab: TabNet,
  session: CdpSession,
  p: Protocol.Fetch.AuthRequiredEvent,
): Promise<void> {
  const owner = tab.rec.controller;
  const auth = owner === undefined ? undefined : credentialsFor(host.peekNet(owner), p.request.url);
  let response: Protocol.Fetch.AuthChallengeResponse;
  if (!auth) response = { response: "Default" };
  else if (tab.authTried.has(p.requestId)) {
    response = { response: "CancelAuth" };
    if (p.resourceType === "Document") tab.rec.authFailure = { url: p.request.url, realm: p.authChallenge.realm };
  } else {
    tab.authTried.add(p.requestId);
    if (tab.authTried.size > 1000) tab.authTried.clear();
    response = { response: "ProvideCredentials", username: auth.username, password: auth.password };
  }
  await session
    .send("Fetch.continueWithAuth", { requestId: p.requestId, authChallengeResponse: response })
    .catch(() => undefined);
}

/** The main-document auth failure since the last call, if any (consumed). */
export function takeAuthFailure(rec: TargetRecord): { url: string; realm: string } | undefined {
  const f = rec.authFailure;
  delete rec.authFailure;
  return f;
}

/** Forgets an old failure before a command navigates, so only its own failure counts. */
export function clearAuthFailure(rec: TargetRecord): void {
  delete rec.authFailure;
}

/** Applies the controlling agent's need for Fetch to every session of one tab (serialised per tab). */
function syncTab(host: NetHost, tab: TabNet): Promise<void> {
  const run = async () => {
    await Promise.all([...tab.sessions.values()].map((w) => applyFetch(host, tab, w)));
  };
  tab.syncing = tab.syncing.then(run, run);
  return tab.syncing;
}

function syncSession(host: NetHost, tab: TabNet, w: Wired): Promise<void> {
  const run = () => applyFetch(host, tab, w);
  tab.syncing = tab.syncing.then(run, run);
  return tab.syncing;
}

async function applyFetch(host: NetHost, tab: TabNet, w: Wired): Promise<void> {
  const key = tab.rec.controller;
  const want = needsFetch(key, key === undefined ? undefined : host.peekNet(key));
  const capture = capturesDownloads(tab);
  const have = w.fetch;
  if (!want.on && !capture) {
    if (have || w.capture) {
      delete w.fetch;
      delete w.capture;
      await w.session.send("Fetch.disable").catch(() => undefined);
    }
    return;
  }
  if ((want.on ? have?.auth === want.auth : !have) && (w.capture === true) === capture) return;
  if (want.on) w.fetch = { auth: want.auth };
  else delete w.fetch;
  w.capture = capture;
  const auth = want.on && want.auth;
  await w.session
    .send("Fetch.enable", { patterns: fetchPatterns(want.on, capture), handleAuthRequests: auth })
    .catch(() => {
      delete w.fetch;
      delete w.capture;
    });
}

/** After rules, credentials or control changed: every tracked tab follows its controller. */
export async function syncAllTabs(conn: BrowserConnection | undefined): Promise<void> {
  const n = connNet(conn);
  if (!n) return;
  await Promise.all([...n.tabs.values()].map((t) => syncTab(n.host, t)));
}

/** How many tabs currently intercept requests for this agent. */
export function interceptingTabs(conn: BrowserConnection | undefined, key: string): number {
  const table = connNet(conn)?.tabs;
  if (!table) return 0;
  let n = 0;
  for (const t of table.values()) if (t.rec.controller === key && t.sessions.get(t.rec.targetId)?.fetch) n++;
  return n;
}

/** Follows a tab's out-of-process iframe sessions: those wired so far at once, later ones until the returned stop. */
export function watchFrameNet(conn: BrowserConnection, targetId: string, fn: (s: CdpSession) => void): () => void {
  const n = connNet(conn);
  if (!n) return () => undefined;
  const byTab = n.frameWatchers;
  const set = byTab.get(targetId) ?? new Set();
  byTab.set(targetId, set);
  set.add(fn);
  for (const [scope, w] of n.tabs.get(targetId)?.sessions ?? [])
    if (scope !== targetId && !w.session.closed) fn(w.session);
  return () => {
    set.delete(fn);
    if (set.size === 0 && byTab.get(targetId) === set) byTab.delete(targetId);
  };
}

/** Settles once the frames a tracked tab had when it was tracked are followed (at once for a tab not tracked). */
export function frameNetReady(conn: BrowserConnection, targetId: string): Promise<unknown> {
  return connNet(conn)?.tabs.get(targetId)?.framesReady ?? Promise.resolve();
}

/** The document loaders a tracked tab has seen (its own and its frames'), so far. */
export function tabLoaders(conn: BrowserConnection, targetId: string): string[] {
  return connNet(conn)?.tabs.get(targetId)?.ends.loadersSeen() ?? [];
}

/** The network session an entry's scope names, for response bodies. */
export function netSession(conn: BrowserConnection, scope: string): CdpSession | undefined {
  return connNet(conn)
    ?.tabs.get(scope.split(">")[0] ?? scope)
    ?.sessions.get(scope)?.session;
}
