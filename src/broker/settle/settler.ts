import type { CdpSession } from "../../cdp/session.ts";
import type { PageStep } from "../../page/runtime.ts";
import type { BrowserConnection } from "../browser.ts";
import { downloadByGuid, onDownloadChange } from "../net/downloads.ts";
import { frameNetReady, watchFrameNet } from "../net/tracker.ts";
import { ensureNetwork } from "../net/network.ts";
import type { TargetRecord } from "../targets.ts";
import { type Effects, noEffects, type QuietPoll } from "./effects.ts";
import { lateChange } from "./late.ts";
import type { ReplyPolicy, ReplySettled, StepPolicy } from "./policy.ts";
import { replyLoop } from "./reply.ts";
import type { InputSpans } from "./requests/input-spans.ts";
import { ActionRequests } from "./requests/requests.ts";
import { type FrameAt, NETWORK_MAX_MS, type WatcherHost, Watchers } from "./watchers.ts";

export type { Effects, QuietPoll } from "./effects.ts";
export type { ReplyPolicy, ReplySettled, SettleCall, StepPolicy, StepSettle, Steps } from "./policy.ts";
export { DOM_QUIET_MAX_MS, SYNC_QUIET_MS } from "./watchers.ts";

/** Settling one action: what it caused, from CDP events subscribed before dispatch and the page's quiet watchers, and the waits until the page is settled enough to observe. */
export class Settler implements WatcherHost {
  private readonly noted = noEffects();
  /** The main frame committed a new document (a later download then does not undo "navigation"). */
  private committed = false;
  private loaded = false;
  /** Where the main frame was asked to go, and when its navigation began (before it commits). */
  private navTo: { url?: string; at: number } | undefined;
  private readonly requests: ActionRequests | undefined;
  private readonly offs: (() => void)[] = [];
  private wake: (() => void) | undefined;
  /** An input went out since the last step settle. */
  private sentSinceSettle = false;
  private dialogResolve: (() => void) | undefined;
  /** Resolves when a dialog opens: the page is then blocked and its calls do not return. */
  readonly dialogOpened = new Promise<void>((resolve) => {
    this.dialogResolve = resolve;
  });
  readonly watchers = new Watchers(this);
  /** Resolves once network events flow for this session. */
  readonly ready: Promise<unknown>;
  readonly mainFrameId: string;

  constructor(
    readonly browser: BrowserConnection,
    readonly rec: TargetRecord,
    readonly session: CdpSession,
    on = true,
  ) {
    // A page target's main frame id is its target id.
    this.mainFrameId = rec.targetId;
    if (!on) {
      this.ready = Promise.resolve();
      return;
    }
    const poke = () => this.wake?.();
    const requests = new ActionRequests(session, () => this.noted.requests++, poke);
    this.requests = requests;
    // A cross-origin frame's requests start in its own session.
    this.offs.push(
      watchFrameNet(browser, rec.targetId, (s) => requests.add(s)),
      () => requests.stop(),
    );
    this.offs.push(...this.listen(browser, session, poke));
    this.ready = Promise.all([ensureNetwork(session), frameNetReady(browser, rec.targetId)]);
  }

  private listen(browser: BrowserConnection, session: CdpSession, poke: () => void): (() => void)[] {
    const e = this.noted;
    const main = this.mainFrameId;
    const navigating = (url: string | undefined) => {
      e.navigation = true;
      this.navTo = { ...(url !== undefined ? { url } : {}), at: this.navTo?.at ?? Date.now() };
    };
    const then =
      <T>(fn: (p: T) => void) =>
      (p: T) => {
        fn(p);
        poke();
      };
    return [
      session.on(
        "Page.frameRequestedNavigation",
        then((p) => p.frameId === main && p.disposition === "currentTab" && navigating(p.url)),
      ),
      session.on(
        "Page.frameStartedNavigating",
        then(
          (p) =>
            p.frameId === main &&
            p.navigationType !== "sameDocument" &&
            p.navigationType !== "historySameDocument" &&
            !e.urlChanged &&
            navigating(p.url),
        ),
      ),
      session.on(
        "Page.frameStartedLoading",
        then((p) => {
          if (p.frameId !== main || e.urlChanged) return;
          e.navigation = true;
          this.navTo ??= { at: Date.now() };
        }),
      ),
      session.on(
        "Page.lifecycleEvent",
        then((p) => {
          if (p.frameId === main && (p.name === "DOMContentLoaded" || p.name === "load") && e.navigation)
            this.loaded = true;
        }),
      ),
      // A #fragment or pushState: no load will come, so no navigation to wait for.
      session.on(
        "Page.navigatedWithinDocument",
        then((p) => {
          if (p.frameId !== main || this.committed) return;
          e.navigation = false;
          e.urlChanged = true;
        }),
      ),
      session.on("Page.frameNavigated", (p) => {
        if (p.frame.id !== main) return;
        this.committed = true;
        e.navigation = true;
      }),
      // A navigation that became a download: the document stays, nothing loads.
      session.on(
        "Page.downloadWillBegin",
        then((p) => {
          e.downloads.push(p.guid);
          if (!this.committed) e.navigation = false;
        }),
      ),
      onDownloadChange(browser, poke),
      session.on(
        "Page.javascriptDialogOpening",
        then(() => {
          e.dialog = true;
          this.dialogResolve?.();
        }),
      ),
      browser.cdp.on("Target.targetCreated", ({ targetInfo }) => {
        if (targetInfo.openerId !== this.rec.targetId || targetInfo.type !== "page") return;
        e.popups.push(targetInfo.targetId);
        poke();
      }),
    ];
  }

  get effects(): Effects {
    return this.noted;
  }
  get dialog(): boolean {
    return this.noted.dialog;
  }
  get responded(): number {
    return this.requests?.responded ?? 0;
  }

  /** Sends the action's input: its whole dispatch, or one input of a composite action, whose input windows are then its steps alone. */
  input<T>(send: () => Promise<T>, step = false, text = false): Promise<T> {
    this.sentSinceSettle = true;
    return step
      ? this.sending(
          send,
          (i) => i.stepping(text),
          (i) => i.stepped(),
        )
      : this.dispatch(send, false);
  }

  /**
   * The action's first input, sent with its locate call (ActionDef.locate().input), sent nothing after all: the reply
   * has no input of it to settle after, and the page's requests meanwhile were not near one.
   */
  withdrawFirstInput(): void {
    this.sentSinceSettle = false;
    this.requests?.inputs.withdrawFirst();
  }

  /** Runs the dispatch; `stepwise`: only what goes through input(send, true) is near an input. */
  dispatch<T>(send: () => Promise<T>, stepwise: boolean): Promise<T> {
    return this.sending(
      send,
      (i) => i.dispatching(stepwise),
      (i) => i.dispatched(),
    );
  }

  /** Whether an input went out since the last step settle (a composite's reply then settles again). */
  get unsettled(): boolean {
    return this.sentSinceSettle;
  }

  private sending<T>(send: () => Promise<T>, begin: (i: InputSpans) => void, end: (i: InputSpans) => void): Promise<T> {
    const inputs = this.requests?.inputs;
    if (inputs) begin(inputs);
    return send().finally(() => inputs && end(inputs));
  }

  /** A wait inside a dispatch: no input goes out meanwhile (requests/polling.ts). */
  async waiting<T>(fn: () => Promise<T>): Promise<T> {
    this.requests?.inputs.settling();
    try {
      return await fn();
    } finally {
      this.requests?.inputs.settled();
    }
  }

  get armed(): boolean {
    return this.watchers.armed;
  }
  quietStep(): PageStep {
    return this.watchers.quietStep();
  }
  frameQuietStep(frame: FrameAt): PageStep {
    return this.watchers.frameQuietStep(frame);
  }
  armFrame(frame: FrameAt): Promise<void> {
    return this.watchers.armFrame(frame);
  }
  armQuiet(frame?: FrameAt): Promise<void> {
    return this.watchers.armQuiet(frame);
  }
  rearmSteps(frame?: FrameAt, o: { hold?: number } = {}): PageStep[] {
    return this.watchers.rearmSteps(frame, o);
  }
  retired(): void {
    this.watchers.retired();
  }

  /** Waits until the page is settled enough to observe. */
  settle(policy: StepPolicy): Promise<unknown[] | undefined>;
  settle<O>(policy: ReplyPolicy<O>): Promise<ReplySettled<O>>;
  async settle<O>(policy: StepPolicy | ReplyPolicy<O>): Promise<unknown[] | undefined | ReplySettled<O>> {
    if (!("reply" in policy)) {
      this.sentSinceSettle = false;
      return this.waiting(() => this.settleStep(policy));
    }
    const out = await replyLoop(this, policy);
    this.noted.mutations += out.mutations;
    if (out.timed) this.noted.timed = true;
    if (out.timedOver) this.noted.timedOver = true;
    this.noted.mutations += await this.watchers.finishFrames();
    this.countDownloads();
    return { ...out, pending: this.pendingNavigation };
  }

  private async settleStep({ deadline, also = [], typing = false }: StepPolicy): Promise<unknown[] | undefined> {
    const e = this.noted;
    const ids = this.watchers.takeQuiet();
    const frames = this.watchers.takeFrames();
    const main = { session: this.session, frameId: this.mainFrameId };
    let mutations = 0;
    let frameMutations = 0;
    /** Each frame watcher's latest count (a frame whose later poll failed keeps its earlier one). */
    const frameCounts = frames.map(() => 0);
    let after: unknown[] | undefined;
    const quiet = async () => {
      if (e.navigation || e.dialog || ids.length === 0) return;
      const [q, ...inFrames] = await Promise.race([
        Promise.all([
          this.watchers.waitQuiet(main, ids, deadline, also, typing),
          ...frames.map((f) => this.watchers.waitQuiet(f, [f.id], deadline, [], typing)),
        ]),
        this.dialogOpened.then((): { poll: QuietPoll | null; also?: unknown[] }[] => [{ poll: null }]),
      ]);
      // The same watchers' counts since their arm: the latest, of which the page may since have learnt some as churn.
      if (q?.poll) mutations = q.poll.mutations;
      inFrames.forEach((f, i) => {
        if (f.poll) frameCounts[i] = f.poll.mutations;
      });
      frameMutations = frameCounts.reduce((n, k) => n + k, 0);
      after = q?.also;
    };
    await quiet();
    const requestsBefore = e.requests;
    await this.waitNetwork(deadline);
    // A response usually changes the page when it lands.
    if (e.requests > requestsBefore || requestsBefore > 0) {
      after = undefined;
      await quiet();
    }
    this.countDownloads();
    e.mutations += mutations + frameMutations;
    return e.navigation || e.dialog ? undefined : after;
  }

  /** After typing into a field that may show suggestions later: late.ts. */
  lateChange(frame: FrameAt, windowMs: number, deadline: number): Promise<boolean> {
    return this.waiting(() => lateChange(this, frame, windowMs, deadline));
  }

  /** A navigation the action started that has not committed yet: Chrome answers no call into the old document meanwhile. */
  get pendingNavigation(): { url?: string; ms: number } | undefined {
    if (!this.noted.navigation || this.committed || this.loaded || this.noted.dialog || !this.navTo) return undefined;
    return { ...(this.navTo.url !== undefined ? { url: this.navTo.url } : {}), ms: Date.now() - this.navTo.at };
  }

  /** Navigating and not loaded yet, or waiting on requests (or a download) the action started. */
  get busy(): boolean {
    const e = this.noted;
    if (e.dialog) return false;
    if (e.downloads.some((g) => downloadByGuid(this.browser, this.rec.controller ?? "", g)?.state === "in_progress"))
      return true;
    return e.navigation ? !this.loaded : (this.requests?.pending.size ?? 0) > 0 && e.downloads.length === 0;
  }

  private countDownloads(): void {
    this.noted.downloadsCompleted = this.noted.downloads.filter(
      (g) => downloadByGuid(this.browser, this.rec.controller ?? "", g)?.state === "completed",
    ).length;
  }

  /** Waits on events, bounded, until a navigation loaded or the action's requests ended. */
  async waitNetwork(deadline: number): Promise<void> {
    const until = Math.min(deadline - 200, Date.now() + NETWORK_MAX_MS);
    while (Date.now() < until && this.busy) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        timer = setTimeout(resolve, Math.max(1, until - Date.now()));
      });
      clearTimeout(timer);
      this.wake = undefined;
    }
  }

  /** Ends the watch; watchers still armed (a failed action) are disconnected without waiting. */
  stop(): void {
    for (const off of this.offs) off();
    this.watchers.stop();
  }
}
