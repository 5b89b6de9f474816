import { outsideCallScope } from "../../cdp/scope.ts";
import type { CdpSession } from "../../cdp/session.ts";
import type { PageStep } from "../../page/runtime.ts";
import type { BrowserConnection } from "../browser.ts";
import { downloadByGuid, onDownloadChange } from "../net/downloads.ts";
import type { InputSpans } from "./requests/input-spans.ts";
import { frameNetReady, watchFrameNet } from "../net/tracker.ts";
import { ensureNetwork } from "../network.ts";
import type { Effects, QuietPoll } from "./effects.ts";
import { ActionRequests } from "./requests/requests.ts";
import type { TargetRecord } from "../targets.ts";
import { callPage } from "../world.ts";
import { callFn, readResult } from "../page-fns.ts";

/**
 * DOM is "settled" (the page's settle step, src/page/settle/settle.ts) a rendered frame after an
 * action whose handlers changed the page synchronously (SYNC_QUIET_MS too when the page set a
 * timer since the arm). A page that keeps changing on its own after the dispatch must be quiet
 * this long…
 */
export const DOM_QUIET_MS = 50;
/** The floor after the last input event when the page set a timer since the arm (a timer stepping faster than this is caught moving). */
export const SYNC_QUIET_MS = 20;
/** …and for this many rendered frames (a JS-timer animation stepping once a frame is moving, not quiet)… */
export const QUIET_FRAMES = 3;
/** …but an endlessly animating page settles anyway after this. */
export const DOM_QUIET_MAX_MS = 1_000;
/** How long disconnecting a failed action's page watchers may take (nobody waits for it). */
const FINISH_MS = 2_000;
/** Requests the action started get this long to finish before we observe anyway. */
const NETWORK_MAX_MS = 3_000;
/**
 * A settled watcher stays this long in the page, so the broker can settle again on it when a
 * request the action started ends (its response's changes still count), and then disconnects
 * on its own: no message of ours is spent on it.
 */
const WATCH_LINGER_MS = NETWORK_MAX_MS + DOM_QUIET_MAX_MS + 2_000;
/**
 * Watcher ids, unique in this broker: a watcher of an earlier action may still linger in the
 * page under its id, and a later action must not take it over.
 */
let lastWatcherId = 0;
const nextWatcherId = (): number => ++lastWatcherId;

export type { Effects, QuietPoll } from "./effects.ts";

/**
 * Watches what an action causes: navigation of the main frame, dialogs, popups, and the
 * network requests it started. Subscribed before dispatch so nothing is missed; settling is
 * driven by these events, bounded, with no fixed sleep. Costs no round trip of its own: the
 * main frame's id is the target's id, and the DOM-quiet watcher is armed inside the action's
 * first page call when it can be (quietStep).
 */
export class ActionWatch {
  readonly effects: Effects = { navigation: false, dialog: false, popups: [], requests: 0, mutations: 0, downloads: [], downloadsCompleted: 0, urlChanged: false, timed: false, timedOver: false };
  /** The main frame committed a new document (then a later download does not undo "navigation"). */
  private committed = false;
  private readonly offs: (() => void)[] = [];
  private wake: (() => void) | undefined;
  private dialogResolve: (() => void) | undefined;
  /** Resolves when a dialog opens: the page is then blocked and input calls do not return. */
  readonly dialogOpened = new Promise<void>((resolve) => {
    this.dialogResolve = resolve;
  });
  /** Quiet watchers armed since the last settle(); settle() waits on them all at once. */
  private quietIds: number[] = [];
  /** Watchers replaced by rearmSteps(), disconnected again at stop() in case that call never went out. */
  private readonly retiring: { session: CdpSession; frameId: string; ids: number[] }[] = [];
  /** Watchers armed in the target's own frame, when that is not the top document. */
  private frameQuiet: { session: CdpSession; frameId: string; id: number }[] = [];
  /** The target-frame watchers' mutations once settleFrames settled them (-1: not settled there). */
  private frameSettled = -1;
  private loaded = false;
  /** Where the main frame was asked to go, and when its navigation began (before it commits). */
  private navTo: { url?: string; at: number } | undefined;
  /** The action's own requests (not the page's polling), in the tab and its out-of-process frames. */
  private requests: ActionRequests | undefined;
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
    const w = this;
    const poke = () => w.wake?.();
    const requests = new ActionRequests(session, w.effects, poke);
    w.requests = requests;
    // A click in a cross-origin frame (or one whose handler reaches into it) starts its
    // requests in the frame's own session: those are followed from the frame's start.
    w.offs.push(watchFrameNet(browser, rec.targetId, (s) => requests.add(s)), () => requests.stop());
    w.offs.push(
      session.on("Page.frameRequestedNavigation", (p) => {
        if (p.frameId === w.mainFrameId && p.disposition === "currentTab") {
          w.effects.navigation = true;
          w.navTo = { url: p.url, at: w.navTo?.at ?? Date.now() };
        }
        poke();
      }),
      // The browser began a new document for the main frame (also before any loading event): where to.
      session.on("Page.frameStartedNavigating", (p) => {
        if (p.frameId === w.mainFrameId && p.navigationType !== "sameDocument" && p.navigationType !== "historySameDocument" && !w.effects.urlChanged) {
          w.effects.navigation = true;
          w.navTo = { url: p.url, at: w.navTo?.at ?? Date.now() };
        }
        poke();
      }),
      session.on("Page.frameStartedLoading", (p) => {
        if (p.frameId === w.mainFrameId && !w.effects.urlChanged) {
          w.effects.navigation = true;
          w.navTo ??= { at: Date.now() };
        }
        poke();
      }),
      session.on("Page.lifecycleEvent", (p) => {
        if (p.frameId === w.mainFrameId && (p.name === "DOMContentLoaded" || p.name === "load") && w.effects.navigation) w.loaded = true;
        poke();
      }),
      session.on("Page.navigatedWithinDocument", (p) => {
        // href="#", a #fragment or pushState: no load will come, so it is no navigation to wait for.
        if (p.frameId === w.mainFrameId && !w.committed) {
          w.effects.navigation = false;
          w.effects.urlChanged = true;
        }
        poke();
      }),
      session.on("Page.frameNavigated", (p) => {
        if (p.frame.id === w.mainFrameId) {
          w.committed = true;
          w.effects.navigation = true;
        }
      }),
      session.on("Page.downloadWillBegin", (p) => {
        w.effects.downloads.push(p.guid);
        // The navigation became a download: the document stays, so nothing loads.
        if (!w.committed) w.effects.navigation = false;
        poke();
      }),
      onDownloadChange(poke),
      session.on("Page.javascriptDialogOpening", () => {
        w.effects.dialog = true;
        w.dialogResolve?.();
        poke();
      }),
      browser.cdp.on("Target.targetCreated", ({ targetInfo }) => {
        if (targetInfo.openerId === rec.targetId && targetInfo.type === "page") {
          w.effects.popups.push(targetInfo.targetId);
          poke();
        }
      }),
    );
    // The frames' network sessions come with the tab's (net/tracker.ts): no call of ours.
    this.ready = Promise.all([ensureNetwork(session), frameNetReady(browser, rec.targetId)]);
  }

  /**
   * Sends the action's input: its whole dispatch, or (`step`) one input of a composite action,
   * whose windows are then its steps alone; `text`: that step types text (settle/requests/requests.ts).
   * What starts near an input may be the action's request even from the poll's own call site
   * (settle/requests/polling.ts).
   */
  input<T>(send: () => Promise<T>, step = false, text = false): Promise<T> {
    return step ? this.sending(send, (i) => i.stepping(text), (i) => i.stepped()) : this.dispatch(send, false);
  }

  /**
   * Runs the action's dispatch. `stepwise`: the dispatch sends each of its inputs through
   * input(send, true), and only those are near an input: not the probes, the waits for an
   * option or a drag to show, the file copy or the read-backs between them.
   */
  dispatch<T>(send: () => Promise<T>, stepwise: boolean): Promise<T> {
    return this.sending(send, (i) => i.dispatching(stepwise), (i) => i.dispatched());
  }

  private sending<T>(send: () => Promise<T>, begin: (i: InputSpans) => void, end: (i: InputSpans) => void): Promise<T> {
    const inputs = this.requests?.inputs;
    if (inputs) begin(inputs);
    return send().finally(() => inputs && end(inputs));
  }

  /**
   * A page step that starts a DOM-quiet watcher in the main frame, for the action's first page
   * call: mutations the action's own event handlers make synchronously are counted too.
   */
  quietStep(): PageStep {
    const id = nextWatcherId();
    this.quietIds.push(id);
    return { fn: "quiet", arg: { op: "install", id } };
  }

  /**
   * The page step that waits, in the page, until the watchers' DOM is settled (at most `max`
   * ms and never past the command's deadline), and answers with the poll and `settled`.
   */
  settleStep(ids: number[], o: { max: number; deadline: number; typing?: boolean }): PageStep {
    const max = Math.max(0, Math.min(o.max, o.deadline - Date.now() - 500));
    // A response is taken like an input event: what its handler starts runs from then on.
    const responded = this.requests?.responded ?? 0;
    const sinceResponse = responded > 0 && !o.typing ? { sinceResponse: Date.now() - responded } : {};
    // The floor only when the page set a timer since the arm (src/page/settle/settle.ts); otherwise a frame
    // after the last input and change, and a moment with no task pending after it.
    const kind = o.typing ? { idle: true } : { click: true, idle: true };
    return { fn: "quiet", arg: { op: "settle", ids, quietFor: DOM_QUIET_MS, syncQuietFor: 0, timerQuietFor: SYNC_QUIET_MS, frames: QUIET_FRAMES, max, linger: WATCH_LINGER_MS, ...sinceResponse, ...kind } };
  }

  /**
   * The same for the target's own frame when that is not the top document: mutations inside
   * an iframe are not the top document's, and a click that changes only the frame changed the
   * page all the same. The step runs in that frame's world (the target's locate call).
   */
  frameQuietStep(frame: { session: CdpSession; frameId: string }): PageStep {
    const id = nextWatcherId();
    this.frameQuiet.push({ session: frame.session, frameId: frame.frameId, id });
    return { fn: "quiet", arg: { op: "install", id } };
  }

  /** Arms a target-frame watcher with a call of its own in that frame (a same-origin child frame, whose world is not the locate call's). */
  armFrame(frame: { session: CdpSession; frameId: string }): Promise<void> {
    return callPage(frame.session, frame.frameId, [this.frameQuietStep(frame)]).then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * Page steps (for the main frame's next call) that end the main-frame watchers armed so far
   * and arm a new one: what happened before that call (a focusing click's effects) is then
   * not counted as what the action's next step caused.
   * With `hold` (ms) they begin with a "hold" on the replaced watchers (type's proving call).
   */
  rearmSteps(frame?: { session: CdpSession; frameId: string }, o: { hold?: number } = {}): PageStep[] {
    const inFrame = frame !== undefined && (frame.frameId !== this.mainFrameId || frame.session !== this.session);
    let old: number[];
    let fresh: PageStep;
    if (inFrame) {
      const mine = this.frameQuiet.filter((f) => f.frameId === frame.frameId && f.session === frame.session);
      this.frameQuiet = this.frameQuiet.filter((f) => !mine.includes(f));
      old = mine.map((f) => f.id);
      fresh = this.frameQuietStep(frame);
    } else {
      old = this.takeQuiet();
      fresh = this.quietStep();
    }
    // Kept until the end: the call that ends them may never be sent (a pin check that fails first).
    if (old.length > 0) this.retiring.push({ session: inFrame ? frame.session : this.session, frameId: inFrame ? frame.frameId : this.mainFrameId, ids: old });
    // `hold`: first the page's "hold" on the replaced watchers (src/page/settle/settle.ts), its answer at index 0.
    const hold = o.hold !== undefined && old.length > 0 ? [{ fn: "quiet" as const, arg: { op: "hold" as const, ids: old, timerQuietFor: o.hold } }] : [];
    return [...hold, ...(old.length > 0 ? [{ fn: "quiet" as const, arg: { op: "poll" as const, ids: old, finish: true } }] : []), fresh];
  }

  /** The call carrying rearmSteps() went out and answered: the replaced watchers are gone. */
  retired(): void {
    this.retiring.length = 0;
  }

  /** Starts DOM-quiet watchers with a call of their own (when there is no page call to ride on). */
  armQuiet(frame?: { session: CdpSession; frameId: string }): Promise<void> {
    const step = this.quietStep();
    const own = frame && frame.frameId !== this.mainFrameId ? frame : undefined;
    const install = (session: CdpSession, frameId: string, st: PageStep) => callPage(session, frameId, [st]).then(() => undefined, () => undefined);
    // Await it before dispatching: a one-message input (hover, key) would otherwise outrun the watcher.
    return Promise.all([install(this.session, this.mainFrameId, step), ...(own ? [install(own.session, own.frameId, this.frameQuietStep(own))] : [])]).then(() => undefined);
  }

  /**
   * Settles the target-frame watchers in their own frames, one call each, sent alongside the top
   * document's settle: the frame's animations and its changes over time are judged by its own
   * ledger (its timers and frames are its document's). Undefined without such a watcher. The
   * watchers stay for a later settle (after the network) and are finished by finishFrameQuiet.
   */
  settleFrames(deadline: number, typing: boolean, also?: { frame: { session: CdpSession; frameId: string }; steps: PageStep[] }): Promise<{ polls: (QuietPoll | null)[]; also?: unknown[] }> | undefined {
    const frames = [...this.frameQuiet];
    if (frames.length === 0 || this.effects.dialog) return undefined;
    // `also`: steps for the target's own frame once it is settled (its read-back), in the same call.
    const mine = (f: { session: CdpSession; frameId: string }) => also !== undefined && f.session === also.frame.session && f.frameId === also.frame.frameId;
    const settles = Promise.all(frames.map((f) => this.waitQuiet(f.session, f.frameId, [f.id], deadline, mine(f) && also ? also.steps : [], typing)));
    return Promise.race([settles, this.dialogOpened.then(() => [])]).then((settled) => {
      for (const q of settled) if (q.poll) this.frameSettled = Math.max(this.frameSettled, q.poll.mutations);
      const read = settled.find((q, i) => q.also !== undefined && frames[i] !== undefined && mine(frames[i]));
      return { polls: settled.map((q) => q.poll), ...(read?.also ? { also: read.also } : {}) };
    });
  }

  /**
   * Counts the target-frame watchers' mutations as the page's and ends them: polled and
   * disconnected, or (settled by settleFrames) left to disconnect on their own.
   */
  async finishFrameQuiet(): Promise<void> {
    const frames = this.frameQuiet.splice(0);
    if (this.frameSettled >= 0) {
      this.effects.mutations += this.frameSettled;
      this.frameSettled = -1;
      return;
    }
    if (this.effects.dialog || frames.length === 0) return;
    // A dialog opening now blocks the frame's page: it answers nothing until it is answered.
    const polls = await Promise.race([Promise.all(frames.map((f) => this.pollIn(f.session, f.frameId, [f.id], true, 0))), this.dialogOpened.then(() => [])]);
    this.effects.mutations += polls.reduce((n, q) => n + (q?.mutations ?? 0), 0);
  }

  /** Whether a quiet watcher is armed and not yet settled (one watcher sees every later mutation). */
  get armed(): boolean {
    return this.quietIds.length > 0;
  }

  /**
   * A navigation the action started whose new document has not committed yet (a server that
   * answers slowly): where it goes and how long it has waited. Chrome answers no call into
   * the old document meanwhile, so nothing is observed until it commits.
   */
  get pendingNavigation(): { url?: string; ms: number } | undefined {
    if (!this.effects.navigation || this.committed || this.loaded || this.effects.dialog || !this.navTo) return undefined;
    return { ...(this.navTo.url !== undefined ? { url: this.navTo.url } : {}), ms: Date.now() - this.navTo.at };
  }

  /** Whether the page is mid-way: navigating and not loaded yet, or waiting on requests the action started. */
  get busy(): boolean {
    if (this.effects.dialog) return false;
    if (this.effects.downloads.some((g) => downloadByGuid(this.rec.controller ?? "", g)?.state === "in_progress")) return true;
    return this.effects.navigation ? !this.loaded : (this.requests?.pending.size ?? 0) > 0 && this.effects.downloads.length === 0;
  }

  /** Counts the action's downloads that completed (at the end of settling). */
  countDownloads(): void {
    this.effects.downloadsCompleted = this.effects.downloads.filter((g) => downloadByGuid(this.rec.controller ?? "", g)?.state === "completed").length;
  }

  /** Waits (on events, bounded) until a navigation loaded or the action's requests ended. */
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

  /** Takes the armed quiet watchers (for a settle that polls them itself). */
  takeQuiet(): number[] {
    const ids = this.quietIds;
    this.quietIds = [];
    return ids;
  }

  private pollIn(session: CdpSession, frameId: string, ids: number[], finish: boolean, after: number): Promise<QuietPoll | null> {
    if (ids.length === 0) return Promise.resolve(null);
    return callFn({ session, frameId }, "quiet", { op: "poll", ids, finish, after }).then(
      (r) => r ?? null,
      () => null,
    );
  }

  /**
   * Waits until the page is settled enough to observe, or the deadline (for steps of a
   * composite action). `also`: main-frame steps to run in the last settle call once settled
   * (an evidence read-back); their results, or undefined when they did not run there.
   * `typing`: text went in; a page that did nothing observable needs no frame (debounced
   * reactions have their own wait, lateChange).
   */
  async settle(deadline: number, also: PageStep[] = [], typing = false): Promise<unknown[] | undefined> {
    return this.waiting(() => this.settleNow(deadline, also, typing));
  }

  /** A wait inside a composite action's dispatch: no input goes out meanwhile (settle/requests/polling.ts). */
  private async waiting<T>(fn: () => Promise<T>): Promise<T> {
    this.requests?.inputs.settling();
    try {
      return await fn();
    } finally {
      this.requests?.inputs.settled();
    }
  }

  private async settleNow(deadline: number, also: PageStep[], typing: boolean): Promise<unknown[] | undefined> {
    const ids = this.takeQuiet();
    const frames = this.frameQuiet.splice(0);
    let mutations = 0;
    let frameMutations = 0;
    let after: unknown[] | undefined;
    const quiet = async () => {
      if (this.effects.navigation || this.effects.dialog || ids.length === 0) return;
      const [q, ...inFrames] = await Promise.race([
        Promise.all([this.waitQuiet(this.session, this.mainFrameId, ids, deadline, also, typing), ...frames.map((f) => this.waitQuiet(f.session, f.frameId, [f.id], deadline, [], typing))]),
        this.dialogOpened.then((): { poll: QuietPoll | null; also?: unknown[] }[] => [{ poll: null }]),
      ]);
      mutations = Math.max(mutations, q?.poll?.mutations ?? 0);
      frameMutations = Math.max(frameMutations, inFrames.reduce((n, f) => n + (f.poll?.mutations ?? 0), 0));
      after = q?.also;
    };
    await quiet();
    const requestsBefore = this.effects.requests;
    await this.waitNetwork(deadline);
    // A response usually changes the page when it lands: be quiet again after the network.
    if (this.effects.requests > requestsBefore || requestsBefore > 0) {
      after = undefined;
      await quiet();
    }
    this.countDownloads();
    // The watchers linger in the page and then disconnect on their own.
    this.effects.mutations += mutations + frameMutations;
    return this.effects.navigation || this.effects.dialog ? undefined : after;
  }

  /**
   * After typing into a field that may show suggestions later (see widget.ts): waits up to
   * `windowMs` for the first DOM change in the frame or a request the page starts, and if one
   * comes, settles again so the list is in the reply. Ends at the first change; a field that
   * shows nothing costs the window once.
   */
  async lateChange(frame: { session: CdpSession; frameId: string }, windowMs: number, deadline: number): Promise<boolean> {
    return this.waiting(() => this.lateChangeNow(frame, windowMs, deadline));
  }

  private async lateChangeNow(frame: { session: CdpSession; frameId: string }, windowMs: number, deadline: number): Promise<boolean> {
    const id = nextWatcherId();
    const requests = this.effects.requests;
    // A starved renderer runs the page's timers late: the window also lasts until the page has
    // rendered as many frames as it would in `windowMs`, within twice the window.
    const window = Math.max(0, Math.min(windowMs, (deadline - 500 - Date.now()) / 2));
    const steps: PageStep[] = [
      { fn: "quiet", arg: { op: "install", id } },
      // The watcher stays when nothing changed: a request the page started may still bring the list.
      { fn: "quiet", arg: { op: "late", ids: [id], windowMs: window, linger: WATCH_LINGER_MS } },
    ];
    const late = await Promise.race([callPage(frame.session, frame.frameId, steps).then((r) => readResult({ steps, results: r.results }, 1, "quiet", "late"), () => null), this.dialogOpened.then(() => null)]);
    const changed = late?.changed === true || this.effects.requests > requests;
    if (changed) {
      if (frame.frameId === this.mainFrameId) this.quietIds.push(id);
      else {
        await this.armQuiet();
        this.frameQuiet.push({ ...frame, id });
      }
      await this.settle(deadline);
    }
    return changed;
  }

  /**
   * Waits in the page until its DOM is settled (managed tabs are visible, so their frames and
   * timers run); bounded by DOM_QUIET_MAX_MS and the command's deadline.
   */
  private async waitQuiet(session: CdpSession, frameId: string, ids: number[], deadline: number, also: PageStep[] = [], typing = false): Promise<{ poll: QuietPoll | null; also?: unknown[] }> {
    if (ids.length === 0) return { poll: null };
    const step = this.settleStep(ids, { max: DOM_QUIET_MAX_MS, deadline, typing });
    // Steps to run once settled ride on the same call (`when`: only if the settle step said so).
    const later = also.map((st) => ({ ...st, when: { step: 0 } }));
    return callPage(session, frameId, [step, ...later]).then(
      (r) => {
        const poll = readResult({ steps: [step], results: r.results }, 0, "quiet", "settle") ?? null;
        return poll?.settled === true && later.length > 0 ? { poll, also: r.results.slice(1) } : { poll };
      },
      () => ({ poll: null }),
    );
  }

  /**
   * Ends the action's watch. Page watchers still armed (an action that failed before it
   * settled: not editable, option not found, a pin interrupt) are disconnected now, without
   * waiting for the answer: otherwise they would ask for frames for a minute.
   */
  stop(): void {
    for (const off of this.offs) off();
    if (this.effects.dialog) return;
    // Outside the command's scope: a cancelled or expired command sends nothing in it.
    const finish = (session: CdpSession, frameId: string, left: number[]) =>
      void outsideCallScope(() => callPage(session, frameId, [{ fn: "quiet", arg: { op: "poll", ids: left, finish: true } }], { timeoutMs: FINISH_MS })).catch(() => undefined);
    const ids = this.takeQuiet();
    if (ids.length > 0) finish(this.session, this.mainFrameId, ids);
    for (const f of this.frameQuiet.splice(0)) finish(f.session, f.frameId, [f.id]);
    for (const r of this.retiring.splice(0)) finish(r.session, r.frameId, r.ids);
  }
}
