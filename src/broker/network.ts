import { outsideCallScope } from "../cdp/scope.ts";
import type { CdpSession } from "../cdp/session.ts";

const enabled = new WeakMap<CdpSession, Promise<unknown>>();

/** How far back a session's request starts are remembered, and how many at most. */
const RECENT_MS = 5_000;
const RECENT_MAX = 200;
/**
 * A page that fetched (GET) the same address this many times within RECENT_MS, spread over at
 * least POLL_SPAN_MS (a page load's burst of pages 1, 2, 3 is no polling), polls it.
 */
const POLLED_AFTER = 3;
const POLL_SPAN_MS = 250;

/**
 * Recent XHR/fetch starts per session (origin and path, time) that no action was running
 * for, from the moment its network events are on.
 */
const recent = new WeakMap<CdpSession, { key: string; at: number }[]>();
/** Actions running on a session now: what starts meanwhile may be theirs, so it is not counted as the page's own. */
const acting = new WeakMap<CdpSession, number>();

/** Marks an action running on the session until the returned function is called. */
export function actionRunning(session: CdpSession): () => void {
  acting.set(session, (acting.get(session) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    acting.set(session, Math.max(0, (acting.get(session) ?? 1) - 1));
  };
}

/**
 * A GET's origin and path (a poller's query, a timestamp or cursor, changes every time);
 * undefined for any other method: a POST to the address the page polls (sending a message to
 * the list it refreshes, any GraphQL call) is never taken for polling.
 */
export function requestKey(method: string, url: string): string | undefined {
  if (method !== "GET") return undefined;
  const q = url.search(/[?#]/);
  return q < 0 ? url : url.slice(0, q);
}

/**
 * Addresses the page has been polling on its own before the action (fetched again and again
 * while no action ran): their requests are background, not the action's.
 */
export function polledAddresses(session: CdpSession, now = Date.now()): Set<string> {
  const seen = new Map<string, { n: number; first: number; last: number }>();
  for (const r of recent.get(session) ?? []) {
    if (now - r.at > RECENT_MS) continue;
    const s = seen.get(r.key);
    if (s) {
      s.n++;
      s.last = r.at;
    } else seen.set(r.key, { n: 1, first: r.at, last: r.at });
  }
  return new Set([...seen].filter(([, s]) => s.n >= POLLED_AFTER && s.last - s.first >= POLL_SPAN_MS).map(([k]) => k));
}

function remember(session: CdpSession): void {
  const list: { key: string; at: number }[] = [];
  recent.set(session, list);
  session.on("Network.requestWillBeSent", (p) => {
    if ((p.type !== "XHR" && p.type !== "Fetch") || (acting.get(session) ?? 0) > 0) return;
    const key = requestKey(p.request.method, p.request.url);
    if (key === undefined) return;
    const now = Date.now();
    list.push({ key, at: now });
    while (list.length > RECENT_MAX || (list.length > 0 && now - (list[0]?.at ?? now) > RECENT_MS)) list.shift();
  });
}

/**
 * Network events of a page session, switched on once and left on: actions watch the
 * requests they start and `wait --network-idle` counts requests in flight. Turning them off
 * after use would cost a round trip each time and blind whoever else listens. No bodies are
 * buffered.
 */
export function ensureNetwork(session: CdpSession): Promise<unknown> {
  let p = enabled.get(session);
  if (!p) {
    if (!recent.has(session)) remember(session);
    p = outsideCallScope(() => session.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 })).catch(() => {
      enabled.delete(session);
    });
    enabled.set(session, p);
  }
  return p;
}
