import { outsideCallScope } from "../cdp/scope.ts";
import type { CdpSession } from "../cdp/session.ts";

const enabled = new WeakMap<CdpSession, Promise<unknown>>();

/** How far back a session's request starts are remembered, and how many at most. */
const RECENT_MS = 5_000;
const RECENT_MAX = 200;
/** A page that asked for the same address this many times within RECENT_MS polls it. */
const POLLED_AFTER = 2;

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

/** The origin and path of a URL: a poller's query (a timestamp, a cursor) changes every time. */
export function requestKey(url: string): string {
  const q = url.search(/[?#]/);
  return q < 0 ? url : url.slice(0, q);
}

/**
 * Addresses the page has been polling on its own (asked for at least twice in the last few
 * seconds, before the action): their requests are background, not the action's.
 */
export function polledAddresses(session: CdpSession, now = Date.now()): Set<string> {
  const counts = new Map<string, number>();
  for (const r of recent.get(session) ?? []) if (now - r.at <= RECENT_MS) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
  return new Set([...counts].filter(([, n]) => n >= POLLED_AFTER).map(([k]) => k));
}

function remember(session: CdpSession): void {
  const list: { key: string; at: number }[] = [];
  recent.set(session, list);
  session.on("Network.requestWillBeSent", (p) => {
    if ((p.type !== "XHR" && p.type !== "Fetch") || (acting.get(session) ?? 0) > 0) return;
    const now = Date.now();
    list.push({ key: requestKey(p.request.url), at: now });
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
    remember(session);
    p = outsideCallScope(() => session.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 })).catch(() => {
      enabled.delete(session);
    });
    enabled.set(session, p);
  }
  return p;
}
