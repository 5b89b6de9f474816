/**
 * When the page's own requests got their answers, from its resource timing: a change that lands
 * during the settle right after such an answer (a fetch's `.then` that renders) is that answer's
 * change, settled from the answer as if it had landed before the settle call (the broker's
 * `sinceResponse`), not held to the quiet period of a page that keeps changing on its own.
 * An observer, not the timeline's buffer: a long-lived page fills that buffer (250 entries by
 * default) and later entries never reach it. Cross-origin answers without Timing-Allow-Origin
 * still give their `responseEnd`.
 */
import type { ActWindow } from "../act/dom.ts";

interface Entry {
  initiatorType?: string;
  startTime: number;
  responseEnd: number;
}
interface EntryList {
  getEntries(): ArrayLike<Entry>;
}
interface Observer {
  observe(options: { type: string; buffered?: boolean }): void;
  takeRecords?(): ArrayLike<Entry>;
  disconnect(): void;
}
type ObserverClass = new (callback: (list: EntryList) => void) => Observer;

/** The answers a watcher has seen: `ends` in page-clock ms, the newest last. */
export interface Responses {
  /** The latest answer that ended at most `within` ms before `at` (and not after it); 0: none. */
  endedBefore(at: number, within: number): number;
  stop(): void;
}

/** Only requests a script made: images, styles and frames a change loads come after that change, not before it. */
const SCRIPTED = new Set(["fetch", "xmlhttprequest"]);
/** Enough for the answers of one action's settle; older ones can no longer be the cause of a change. */
const KEEP = 32;

/** Watches the answers to requests the page's scripts start from `since` (page clock) on; null where the page has no observer. */
export function watchResponses(win: ActWindow, since: number): Responses | null {
  const Ctor = (win as unknown as { PerformanceObserver?: ObserverClass }).PerformanceObserver;
  if (typeof Ctor !== "function") return null;
  const ends: number[] = [];
  const add = (list: ArrayLike<Entry>): void => {
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      if (!e || !SCRIPTED.has(e.initiatorType ?? "") || !(e.startTime >= since)) continue;
      ends.push(e.responseEnd);
      if (ends.length > KEEP) ends.shift();
    }
  };
  let obs: Observer;
  try {
    obs = new Ctor((list) => add(list.getEntries()));
    obs.observe({ type: "resource" });
  } catch {
    return null;
  }
  return {
    endedBefore(at, within) {
      // Entries queued for the observer's next callback are already known (a change's own task may come first).
      try {
        if (obs.takeRecords) add(obs.takeRecords());
      } catch {}
      let best = 0;
      for (const end of ends) if (end <= at && at - end <= within && end > best) best = end;
      return best;
    },
    stop() {
      try {
        obs.disconnect();
      } catch {}
    },
  };
}
