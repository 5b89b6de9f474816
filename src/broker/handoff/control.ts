/**
 * Human takeover and handback (DESIGN §11). A handoff closes admission to the tab at once (admitted commands drain),
 * then gives it to a person until handback or lease end; meanwhile every tab command fails with human_control. On
 * handback the inventory is resynced, refs go stale and the agents concerned get a notice.
 */
import { LEASE_SECONDS } from "../../protocol/commands-handoff.ts";
import { commandNamed } from "../../protocol/registry.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { Agent, AgentRegistry } from "../agents.ts";
import type { BrowserConnection } from "../browser.ts";
import { forgetPointer } from "../pointer-at.ts";
import { changesSince, takeBaseline } from "./summary.ts";
import type { Baseline, Changes } from "./types.ts";
import { cutString } from "../../shared/page-strings.ts";

export type Phase = "draining" | "human" | "returning";
export type EndReason = "handback" | "lease_ended" | "agent_released";

/** A lease in ms: the seconds asked for, cut to the host's longest handoff (BROWSER_PILOT_HANDOFF_MAX_MS) if set. */
function leaseMs(seconds: number): number {
  const cap = Number(process.env.BROWSER_PILOT_HANDOFF_MAX_MS);
  return cap > 0 ? Math.min(seconds * 1000, cap) : seconds * 1000;
}

export interface Episode {
  targetId: string;
  generation: number;
  by: string;
  message?: string;
  phase: Phase;
  endsAt: number;
  /** Agents whose commands were refused; told when the tab comes back. */
  blocked: Set<string>;
  before?: Baseline;
  timer?: Timer;
  /** Settles when control became human (true) or the episode ended first (false). */
  human: Promise<boolean>;
  ended: Promise<EndReason>;
  markHuman: (reached: boolean) => void;
  markEnded: (reason: EndReason) => void;
}

export interface PendingNotice extends Changes {
  targetId: string;
  generation: number;
  ended: EndReason;
}

export interface HandoffHost {
  readonly browser: BrowserConnection | undefined;
  readonly agents: AgentRegistry;
}

export interface AdmitRequest {
  invocation: string;
  clientKey: string;
  command: string;
}

export function checkLease(seconds: unknown): number {
  if (seconds === undefined) return LEASE_SECONDS.default;
  if (
    typeof seconds !== "number" ||
    !Number.isInteger(seconds) ||
    seconds < LEASE_SECONDS.min ||
    seconds > LEASE_SECONDS.max
  ) {
    throw invalidArgument(
      "lease-seconds",
      `Lease seconds are ${LEASE_SECONDS.min}-${LEASE_SECONDS.max}; nothing was changed.`,
      { min: LEASE_SECONDS.min, max: LEASE_SECONDS.max },
    );
  }
  return seconds;
}

export class HandoffControl {
  private readonly episodes = new Map<string, Episode>();
  private readonly admitted = new Map<string, Set<string>>();
  private readonly drainWaiters = new Map<string, Set<() => void>>();
  private readonly notices = new Map<string, PendingNotice[]>();
  /** Called when a tab leaves human control, before anyone is told: viewers lose input here. */
  onReturning: ((targetId: string, reason: string) => void) | undefined;
  onChanged: ((targetId: string) => void) | undefined;

  constructor(private readonly host: HandoffHost) {}

  get(targetId: string): Episode | undefined {
    return this.episodes.get(targetId);
  }

  all(): Episode[] {
    return [...this.episodes.values()];
  }

  /** The admission gate every tab command passes: refused at once while draining, human or returning. */
  admit(req: AdmitRequest, targetId: string, tabId: string): void {
    const ep = this.episodes.get(targetId);
    const exempt = commandNamed(req.command)?.duringHandoff === true;
    if (ep && !exempt) {
      if (req.clientKey !== ep.by) ep.blocked.add(req.clientKey);
      throw humanControlError(ep, tabId);
    }
    if (exempt) return;
    let tabs = this.admitted.get(req.invocation);
    if (!tabs) this.admitted.set(req.invocation, (tabs = new Set()));
    tabs.add(targetId);
  }

  /** The gate on the per-tab queue: only commands admitted before the handoff drain through. */
  assertQueueOpen(targetId: string): void {
    const ep = this.episodes.get(targetId);
    if (ep && ep.phase !== "draining") throw humanControlError(ep, undefined);
  }

  finish(invocation: string): void {
    const tabs = this.admitted.get(invocation);
    if (!tabs) return;
    this.admitted.delete(invocation);
    for (const t of tabs) {
      if (this.inFlight(t)) continue;
      for (const wake of this.drainWaiters.get(t) ?? []) wake();
      this.drainWaiters.delete(t);
    }
  }

  inFlight(targetId: string): boolean {
    for (const tabs of this.admitted.values()) if (tabs.has(targetId)) return true;
    return false;
  }

  private drained(targetId: string): Promise<void> {
    if (!this.inFlight(targetId)) return Promise.resolve();
    return new Promise((resolve) => {
      let set = this.drainWaiters.get(targetId);
      if (!set) this.drainWaiters.set(targetId, (set = new Set()));
      set.add(resolve);
    });
  }

  /** Closes admission now; control turns human once admitted commands have finished. */
  start(
    targetId: string,
    by: string,
    leaseSeconds: number,
    message: string | undefined,
    bringToFront: () => Promise<void>,
  ): Episode {
    const browser = this.requireBrowser();
    let markHuman!: (reached: boolean) => void;
    let markEnded!: (reason: EndReason) => void;
    const ep: Episode = {
      targetId,
      generation: browser.generation,
      by,
      ...(message !== undefined ? { message } : {}),
      phase: "draining",
      // The lease runs from the moment admission closes, draining included.
      endsAt: Date.now() + leaseMs(leaseSeconds),
      blocked: new Set(),
      human: new Promise((r) => (markHuman = r)),
      ended: new Promise((r) => (markEnded = r)),
      markHuman: (x) => markHuman(x),
      markEnded: (x) => markEnded(x),
    };
    this.episodes.set(targetId, ep);
    this.arm(ep);
    forgetTabPointer(browser, targetId);
    void (async () => {
      await this.drained(targetId);
      if (this.episodes.get(targetId) !== ep || ep.phase !== "draining") return;
      const rec = browser.targets.byId.get(targetId);
      if (rec) ep.before = await takeBaseline(browser, rec).catch(() => undefined);
      if (this.episodes.get(targetId) !== ep || ep.phase !== "draining") return;
      ep.phase = "human";
      ep.markHuman(true);
      this.onChanged?.(targetId);
      await bringToFront().catch(() => undefined);
    })();
    return ep;
  }

  /** Extends the deadline to now + lease when that is later; never shortens, never revives. */
  renew(ep: Episode, leaseSeconds: number): void {
    if (ep.phase === "returning" || this.episodes.get(ep.targetId) !== ep) {
      throw new BpError(
        "human_control",
        "This handoff is already ending; wait for the handback, then hand off again.",
        { retryable: true, context: { phase: "returning" } },
      );
    }
    ep.endsAt = Math.max(ep.endsAt, Date.now() + leaseMs(leaseSeconds));
    this.arm(ep);
    this.onChanged?.(ep.targetId);
  }

  private arm(ep: Episode): void {
    clearTimeout(ep.timer);
    ep.timer = setTimeout(() => void this.end(ep.targetId, "lease_ended"), Math.max(0, ep.endsAt - Date.now()));
  }

  /** Ends human control: viewers lose input, the inventory is resynced, refs go stale, notices are queued. */
  async end(targetId: string, reason: EndReason): Promise<void> {
    const ep = this.episodes.get(targetId);
    if (!ep) return;
    if (ep.phase === "returning") {
      await ep.ended;
      return;
    }
    ep.phase = "returning";
    clearTimeout(ep.timer);
    ep.markHuman(false);
    this.onReturning?.(targetId, reason);
    const browser = this.host.browser;
    forgetTabPointer(browser, targetId);
    let changes: Changes = { newTargets: [] };
    if (browser && !browser.closed && browser.generation === ep.generation) {
      changes = await changesSince(browser, targetId, ep.before).catch(() => ({ newTargets: [] }));
      invalidateRefs(this.host.agents.all(), targetId);
    }
    const notice: PendingNotice = { ...changes, targetId, generation: ep.generation, ended: reason };
    for (const key of new Set([ep.by, ...ep.blocked])) {
      const list = this.notices.get(key) ?? [];
      list.push(notice);
      this.notices.set(key, list);
    }
    this.episodes.delete(targetId);
    ep.markEnded(reason);
  }

  /** The browser connection went away: its handoffs end without a notice (nothing to resync). */
  dropGeneration(generation: number): void {
    for (const ep of [...this.episodes.values()]) {
      if (ep.generation !== generation) continue;
      clearTimeout(ep.timer);
      this.onReturning?.(ep.targetId, "browser_lost");
      this.episodes.delete(ep.targetId);
      ep.markHuman(false);
      ep.markEnded("handback");
    }
  }

  /** Whether this agent has a tab under human control (its lease must not expire meanwhile). */
  holds(key: string): boolean {
    for (const ep of this.episodes.values()) if (ep.by === key) return true;
    return false;
  }

  takeNotices(key: string): PendingNotice[] | undefined {
    const list = this.notices.get(key);
    if (!list) return undefined;
    this.notices.delete(key);
    return list;
  }

  forgetAgent(key: string): void {
    this.notices.delete(key);
  }

  private requireBrowser(): BrowserConnection {
    const b = this.host.browser;
    if (!b || b.closed) throw new BpError("browser_disconnected", "No browser is connected.", { retryable: true });
    return b;
  }
}

export function humanControlError(ep: Episode, tabId: string | undefined): BpError {
  const until = new Date(ep.endsAt).toISOString();
  const tab = tabId !== undefined ? `Tab ${tabId}` : "This tab";
  return new BpError(
    "human_control",
    `${tab} is under human control until ${until}${ep.message ? ` ("${cutString(ep.message, 120)}")` : ""}.`,
    {
      retryable: true,
      hint: "A person is using this tab. Do other work or stop; do not poll: your next reply after the handback says what changed.",
      context: { ...(tabId !== undefined ? { tab: tabId } : {}), until, phase: ep.phase },
    },
  );
}

/** The person may have moved the tab's mouse (at the window or through a viewer): an agent's next click moves it first. */
function forgetTabPointer(browser: BrowserConnection | undefined, targetId: string): void {
  void browser?.targets.byId.get(targetId)?.session?.then(forgetPointer, () => undefined);
}

/** Every agent's refs of the tab go stale (human_control); numbering continues, so old numbers never return. */
function invalidateRefs(agents: Agent[], targetId: string): void {
  for (const agent of agents) {
    const obs = agent.observations.get(targetId);
    if (!obs) continue;
    obs.refs.clear();
    obs.last = undefined;
    obs.humanControlBelow = obs.nextRef;
  }
}
