/** `bp wait`: one condition, checked broker-side until it holds or the deadline passes; event-driven where possible. */
import { withCallScope } from "../../cdp/scope.ts";
import type { CdpSession } from "../../cdp/session.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { BrowserConnection } from "../browser.ts";
import { assertNoDialog, selectedTab, type Selected } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { listFrames } from "./frame-list.ts";
import { ensureNetwork } from "../net/network.ts";
import { callSteps, step, type Step } from "../page-fns.ts";
import { urlMatches } from "../commands/canonical.ts";
import { nextFinishedDownload, onDownloadChange } from "../net/downloads.ts";
import { JOURNAL_MAX_ENTRIES, type NetEntry } from "../net/journal.ts";
import type { AgentNet } from "../net/state.ts";
import { frameNetReady, tabLoaders, watchFrameNet } from "../net/tracker.ts";
import { cutString } from "../../shared/page-strings.ts";

export type WaitCondition =
  | { kind: "url"; pattern: string }
  | { kind: "text"; text: string }
  | { kind: "selector"; css: string; attached: boolean }
  | { kind: "dialog" }
  | { kind: "popup" }
  | { kind: "download" }
  | { kind: "network-idle" };

/** Quiet time with no request in flight that counts as network idle. */
export const NETWORK_IDLE_MS = 500;
/** Finish a little before the broker's own deadline so the answer is wait_timeout, not command_expired. */
const DEADLINE_MARGIN_MS = 25;
const PAGE_CHECK_MAX_MS = 2_000;

type Matched = Record<string, unknown>;

class Waker {
  private wakeFn: (() => void) | undefined;
  private pending = false;

  wake = (): void => {
    // Deferred: other listeners of the same event (dialog and target records) run first.
    setTimeout(() => {
      this.pending = true;
      this.wakeFn?.();
    }, 0);
  };

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.wakeFn = undefined;
        this.pending = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeFn = done;
      signal.addEventListener("abort", done);
    });
  }
}

/** Lean: `matched` holds only what the agent did not know (no frame 0, no visible:true, nothing for network-idle). */
export async function runWait(
  ctx: CallContext,
  cond: WaitCondition,
  intervalMs: number,
): Promise<{ elapsedMs: number; matched?: Record<string, unknown> }> {
  const started = Date.now();
  const browser = ctx.broker.requireBrowser();
  const agent = ctx.agent();
  const needsTab = cond.kind !== "dialog" && cond.kind !== "popup" && cond.kind !== "download";
  const sel = needsTab ? selectedTab(ctx, { allowDialog: true }) : undefined;
  const session =
    sel && (cond.kind === "text" || cond.kind === "selector" || cond.kind === "network-idle")
      ? await browser.session(sel.rec)
      : undefined;
  const waker = new Waker();
  const offs: (() => void)[] = [];
  const end = ctx.deadline - DEADLINE_MARGIN_MS;
  let check: () => Promise<Matched | undefined>;
  switch (cond.kind) {
    case "url": {
      const rec = (sel as Selected).rec;
      offs.push(
        browser.cdp.on(
          "Target.targetInfoChanged",
          ({ targetInfo }) => targetInfo.targetId === rec.targetId && waker.wake(),
        ),
      );
      check = async () => (urlMatches(rec.url, cond.pattern) ? { url: rec.url } : undefined);
      break;
    }
    case "text":
    case "selector": {
      const s = sel as Selected;
      const needle = cond.kind === "text" ? cond.text.replace(/\s+/g, " ").trim().toLowerCase() : "";
      if (cond.kind === "text" && needle === "") throw invalidArgument("text", "Text to wait for is empty.");
      const pageCheck =
        cond.kind === "text"
          ? step("waitText", { needle })
          : step("waitSelector", { css: cond.css, visible: !cond.attached });
      offs.push(
        (session as CdpSession).on("Page.loadEventFired", waker.wake),
        (session as CdpSession).on("Page.domContentEventFired", waker.wake),
      );
      check = () => searchFrames(s, session as CdpSession, pageCheck, end);
      break;
    }
    case "dialog":
      offs.push(browser.cdp.on("Page.javascriptDialogOpening", waker.wake));
      check = async () =>
        pendingDialog(browser, agent.key, (id) => agent.existingId(id) ?? agent.idFor(id, browser.generation));
      break;
    case "popup":
      offs.push(
        browser.cdp.on("Target.targetCreated", waker.wake),
        browser.cdp.on("Target.targetInfoChanged", waker.wake),
      );
      check = async () => {
        for (const t of browser.targets.byId.values()) {
          if (t.origin === "managed_popup" && t.creator === agent.key)
            return { tab: agent.existingId(t.targetId) ?? agent.idFor(t.targetId, browser.generation), url: t.url };
        }
        return undefined;
      };
      break;
    case "download":
      offs.push(onDownloadChange(browser, waker.wake));
      check = async () => nextFinishedDownload(agent.netIfAny);
      break;
    case "network-idle": {
      const rec = (sel as Selected).rec;
      const idle = await watchNetwork(
        browser,
        rec.targetId,
        session as CdpSession,
        waker,
        offs,
        inFlightAtStart(agent.netIfAny, rec.targetId),
      );
      check = async () => (idle() ? {} : undefined);
      break;
    }
  }
  const timedOut = () =>
    new BpError("wait_timeout", `The ${cond.kind} condition did not hold within ${ctx.req.timeoutMs} ms.`, {
      retryable: true,
      context: { condition: cond.kind, timeoutMs: ctx.req.timeoutMs },
    });
  // A check waiting on a slow CDP round trip must not carry the wait past the broker's deadline.
  let endTimer: Timer | undefined;
  const ended = new Promise<"ended">((resolve) => {
    endTimer = setTimeout(() => resolve("ended"), Math.max(0, end - Date.now()));
  });
  offs.push(() => clearTimeout(endTimer));
  try {
    for (;;) {
      if (ctx.signal.aborted) throw new BpError("command_cancelled", "Wait cancelled.", { retryable: true });
      if (browser.closed)
        throw new BpError("browser_disconnected", "The browser connection was lost while waiting.", {
          retryable: true,
        });
      if (sel && !browser.targets.byId.has(sel.rec.targetId))
        throw new BpError("tab_not_found", `Tab ${sel.id} closed while waiting.`, {
          context: { tab: sel.id, reason: "target_closed" },
        });
      const pending = withCallScope({ deadline: end, signal: ctx.signal }, check);
      pending.catch(() => undefined);
      const matched = await Promise.race([pending, ended]);
      if (matched === "ended") throw timedOut();
      if (matched) return { elapsedMs: Date.now() - started, ...(Object.keys(matched).length > 0 ? { matched } : {}) };
      const left = end - Date.now();
      if (left <= 0) throw timedOut();
      await waker.sleep(Math.min(intervalMs, left), ctx.signal);
    }
  } finally {
    for (const off of offs) off();
  }
}

/** Runs a page check in every document of the tab (our isolated world); first hit wins. */
async function searchFrames(
  sel: Selected,
  session: CdpSession,
  check: Step<"waitText"> | Step<"waitSelector">,
  end: number,
): Promise<Matched | undefined> {
  // A pending dialog blocks the page's scripts: say so instead of timing out silently.
  assertNoDialog(sel);
  const budget = () => Math.max(1, Math.min(PAGE_CHECK_MAX_MS, end - Date.now()));
  const frames = await listFrames(sel.rec, session).catch(() => []);
  for (const [index, f] of frames.entries()) {
    const hit = await callSteps(f.session, f.id, [check], { timeoutMs: budget() }).then(
      (r) => r.results[0],
      () => null,
    );
    if (hit && "invalid" in hit)
      throw invalidArgument(
        "selector",
        `Not a valid CSS selector: ${String(check.fn === "waitSelector" ? check.arg?.css : undefined)}`,
      );
    if (hit) {
      const { visible, ...rest }: { visible?: boolean } & Matched = hit;
      return { ...(index > 0 ? { frame: index } : {}), ...rest, ...(visible === false ? { visible } : {}) };
    }
  }
  return undefined;
}

function pendingDialog(
  browser: BrowserConnection,
  key: string,
  idOf: (targetId: string) => string,
): Matched | undefined {
  for (const t of browser.targets.byId.values()) {
    const d = t.dialog;
    if (d && t.controller === key)
      return { dialog: d.id, tab: idOf(t.targetId), type: d.type, message: cutString(d.message, 500) };
  }
  return undefined;
}

/** A request that never ended this long after it began (a stream, a lost event) no longer counts. */
const IN_FLIGHT_MAX_AGE_MS = 60_000;

/**
 * Requests of this tab (and its out-of-process frames, scoped "<tab>><frame>") already in
 * flight when the wait starts: the tab's network journal has them from the moment the tab was
 * first attached, while this wait's own subscription only sees requests that begin after it.
 */
function inFlightAtStart(net: AgentNet | undefined, targetId: string): NetEntry[] {
  const journal = net?.journal;
  if (!journal) return [];
  const now = Date.now();
  const mine = (scope: string) => scope === targetId || scope.startsWith(`${targetId}>`);
  return journal
    .query({ limit: JOURNAL_MAX_ENTRIES })
    .entries.filter((e) => mine(e.targetId) && !e.done && now - e.startedAt < IN_FLIGHT_MAX_AGE_MS);
}

/**
 * Tracks requests of one tab and its out-of-process frames; idle() after NETWORK_IDLE_MS with none in flight. Documents
 * are keyed by navigation id (a frame's starts on its parent's session).
 */
async function watchNetwork(
  browser: BrowserConnection,
  targetId: string,
  session: CdpSession,
  waker: Waker,
  offs: (() => void)[],
  earlier: NetEntry[],
): Promise<() => boolean> {
  /** Requests in flight, by "<session>:<request id>" → the main-frame document generation they belong to. */
  const inflight = new Map<string, number>();
  const documents = new Map<string, { key: string; frameId?: string }>();
  /** A request belongs to its loader's document (as in net/ends.ts); loaders from before the wait are generation 0. */
  const loaders = new Map<string, number>(tabLoaders(browser, targetId).map((l) => [l, 0]));
  let gen = 0;
  let mainDoc: { requestId: string; gen: number } | undefined;
  let pendingEarlier = earlier.filter((e) => !e.done);
  let quietSince = Date.now();
  let timer: Timer | undefined;
  const settle = () => {
    if (inflight.size > 0 || pendingEarlier.length > 0) return;
    quietSince = Date.now();
    clearTimeout(timer);
    timer = setTimeout(waker.wake, NETWORK_IDLE_MS + 5);
  };
  let followed = 0;
  const follow = (s: CdpSession) => {
    const tag = `${followed++}:`;
    const own = new Set<string>();
    const done = (p: { requestId: string }) => {
      own.delete(tag + p.requestId);
      const doc = documents.get(p.requestId);
      documents.delete(p.requestId);
      if (inflight.delete(tag + p.requestId) || (doc !== undefined && inflight.delete(doc.key))) settle();
      // The main frame's new document loaded: what earlier documents left open went with them.
      if (s === session && mainDoc?.requestId === p.requestId) {
        for (const [key, g] of inflight) if (g < mainDoc.gen) inflight.delete(key);
        settle();
      }
    };
    offs.push(
      s.on("Network.requestWillBeSent", (p) => {
        if (s === session && p.type === "Document" && p.frameId === targetId && !p.redirectResponse)
          mainDoc = { requestId: p.requestId, gen: ++gen };
        if (p.loaderId !== "" && !loaders.has(p.loaderId)) loaders.set(p.loaderId, gen);
        inflight.set(tag + p.requestId, loaders.get(p.loaderId) ?? gen);
        own.add(tag + p.requestId);
        if (p.type === "Document")
          documents.set(p.requestId, {
            key: tag + p.requestId,
            ...(p.frameId !== undefined ? { frameId: p.frameId } : {}),
          });
      }),
      s.on("Network.loadingFinished", done),
      s.on("Network.loadingFailed", done),
      // A frame that goes takes its requests along, and its document (begun on its parent's session): none of them will end.
      s.onClose(() => {
        for (const key of own) inflight.delete(key);
        own.clear();
        for (const [id, d] of documents) {
          if (d.frameId === undefined || d.frameId !== s.targetId) continue;
          inflight.delete(d.key);
          documents.delete(id);
        }
        settle();
      }),
    );
  };
  follow(session);
  offs.push(watchFrameNet(browser, targetId, follow), () => clearTimeout(timer));
  await Promise.all([ensureNetwork(session), frameNetReady(browser, targetId)]);
  settle();
  return () => {
    // Requests from before the wait end in the journal, not here: noticed on the next poll.
    if (pendingEarlier.length > 0) {
      pendingEarlier = pendingEarlier.filter((e) => !e.done);
      if (pendingEarlier.length > 0) return false;
      settle();
    }
    return inflight.size === 0 && Date.now() - quietSince >= NETWORK_IDLE_MS;
  };
}
