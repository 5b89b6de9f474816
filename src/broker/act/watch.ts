import type { CdpSession } from "../../cdp/session.ts";
import { QUIET_SOURCE } from "../../page/act-script.ts";
import type { BrowserConnection } from "../browser.ts";
import { downloadByGuid, onDownloadChange } from "../net/downloads.ts";
import { runInWorld } from "../world.ts";
import type { TargetRecord } from "../targets.ts";

/**
 * DOM is "settled" after this long without mutations and with no animation the action began
 * still running: three frame intervals, so a JS-timer animation stepping once a frame (or
 * every 13 ms, as jQuery does) is still moving, not quiet…
 */
const DOM_QUIET_MS = 50;
/** Rendered frames without a mutation that also count as quiet (a starved renderer runs late). */
const QUIET_FRAMES = 3;
/** …but an endlessly animating page settles anyway after this. */
const DOM_QUIET_MAX_MS = 1_000;
/** Requests the action started get this long to finish before we observe anyway. */
const NETWORK_MAX_MS = 3_000;

export interface Effects {
  navigation: boolean;
  dialog: boolean;
  popups: string[];
  requests: number;
  /** DOM mutations seen while waiting for quiet. */
  mutations: number;
  /** Browser GUIDs of downloads the action started (a link that downloads is not a navigation). */
  downloads: string[];
  /** How many of them completed before the action settled. */
  downloadsCompleted: number;
  /** A same-document navigation (#fragment, history.pushState): the URL changed, the document did not. */
  urlChanged: boolean;
}

/**
 * Watches what an action causes: navigation of the main frame, dialogs, popups, and the
 * network requests it started. Subscribed before dispatch so nothing is missed; settling is
 * driven by these events, bounded, with no fixed sleep.
 */
export class ActionWatch {
  readonly effects: Effects = { navigation: false, dialog: false, popups: [], requests: 0, mutations: 0, downloads: [], downloadsCompleted: 0, urlChanged: false };
  /** The main frame committed a new document (then a later download does not undo "navigation"). */
  private committed = false;
  private readonly pending = new Set<string>();
  private readonly offs: (() => void)[] = [];
  private wake: (() => void) | undefined;
  private dialogResolve: (() => void) | undefined;
  /** Resolves when a dialog opens: the page is then blocked and input calls do not return. */
  readonly dialogOpened = new Promise<void>((resolve) => {
    this.dialogResolve = resolve;
  });
  /** Quiet watchers armed since the last settle(); settle() waits on them all at once. */
  private readonly quietIds: number[] = [];
  /** Watchers armed in the target's own frame, when that is not the top document. */
  private readonly frameQuiet: { session: CdpSession; frameId: string; id: number }[] = [];
  private loaded = false;
  private quietSeq = 0;

  private constructor(
    private readonly browser: BrowserConnection,
    private readonly rec: TargetRecord,
    private readonly session: CdpSession,
    private readonly mainFrameId: string,
  ) {}

  /**
   * `blocked`: a dialog holds the page, which answers Page.getFrameTree and Network.enable only
   * after it; the main frame's id is then the target's (as Chromium numbers them), and
   * Network.enable is not waited for.
   */
  static async start(browser: BrowserConnection, rec: TargetRecord, session: CdpSession, opts: { blocked?: boolean } = {}): Promise<ActionWatch> {
    const mainFrameId = opts.blocked ? rec.targetId : (await session.send("Page.getFrameTree")).frameTree.frame.id;
    const w = new ActionWatch(browser, rec, session, mainFrameId);
    const poke = () => w.wake?.();
    w.offs.push(
      session.on("Page.frameRequestedNavigation", (p) => {
        if (p.frameId === w.mainFrameId && p.disposition === "currentTab") w.effects.navigation = true;
        poke();
      }),
      session.on("Page.frameStartedLoading", (p) => {
        if (p.frameId === w.mainFrameId && !w.effects.urlChanged) w.effects.navigation = true;
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
      session.on("Network.requestWillBeSent", (p) => {
        if (p.type === "Document" || p.type === "XHR" || p.type === "Fetch") {
          w.pending.add(p.requestId);
          w.effects.requests++;
        }
      }),
      session.on("Network.loadingFinished", (p) => {
        w.pending.delete(p.requestId);
        poke();
      }),
      session.on("Network.loadingFailed", (p) => {
        w.pending.delete(p.requestId);
        poke();
      }),
      browser.cdp.on("Target.targetCreated", ({ targetInfo }) => {
        if (targetInfo.openerId === rec.targetId && targetInfo.type === "page") {
          w.effects.popups.push(targetInfo.targetId);
          poke();
        }
      }),
    );
    const network = session.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }).catch(() => undefined);
    if (!opts.blocked) await network;
    return w;
  }

  /**
   * Starts a DOM-quiet watcher before dispatch, so mutations the action's own event
   * handlers make synchronously are counted too; settle() then waits for quiet.
   */
  armQuiet(frame?: { session: CdpSession; frameId: string }): Promise<void> {
    const id = ++this.quietSeq;
    this.quietIds.push(id);
    // The target's own frame too: mutations inside an iframe (out of process or not) are not
    // the top document's, and a click that changes only the frame changed the page all the same.
    const own = frame && frame.frameId !== this.mainFrameId ? frame : undefined;
    if (own) this.frameQuiet.push({ ...own, id });
    const install = (session: CdpSession, frameId: string) => runInWorld(session, frameId, QUIET_SOURCE, { op: "install", id }).then(() => undefined, () => undefined);
    // Await it before dispatching: a one-message input (hover, key) would otherwise outrun the watcher.
    return Promise.all([install(this.session, this.mainFrameId), ...(own ? [install(own.session, own.frameId)] : [])]).then(() => undefined);
  }

  /** Whether a quiet watcher is armed and not yet settled (one watcher sees every later mutation). */
  get armed(): boolean {
    return this.quietIds.length > 0;
  }

  /** Waits until the page is settled enough to observe, or the deadline. */
  async settle(deadline: number): Promise<void> {
    const until = Math.min(deadline - 200, Date.now() + NETWORK_MAX_MS);
    // A navigation or dialog may begin a moment after the click's event handlers ran.
    const ids = this.quietIds.splice(0);
    const frames = this.frameQuiet.splice(0);
    let mutations = 0;
    let frameMutations = 0;
    const quiet = async () => {
      if (this.effects.navigation || this.effects.dialog || ids.length === 0) return;
      const [q, ...inFrames] = await Promise.race([
        Promise.all([this.waitQuiet(this.session, this.mainFrameId, ids), ...frames.map((f) => this.waitQuiet(f.session, f.frameId, [f.id]))]),
        this.dialogOpened.then(() => [null]),
      ]);
      mutations = Math.max(mutations, q?.mutations ?? 0);
      frameMutations = Math.max(frameMutations, inFrames.reduce((n, f) => n + (f?.mutations ?? 0), 0));
    };
    await quiet();
    const requestsBefore = this.effects.requests;
    while (Date.now() < until) {
      if (this.effects.dialog) break;
      const downloading = this.effects.downloads.some((g) => downloadByGuid(this.rec.controller ?? "", g)?.state === "in_progress");
      if (!downloading && (this.effects.navigation ? this.loaded : this.pending.size === 0 || this.effects.downloads.length > 0)) break;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, Math.max(1, until - Date.now()));
      });
      this.wake = undefined;
    }
    // A response usually changes the page when it lands: be quiet again after the network.
    if (this.effects.requests > requestsBefore || requestsBefore > 0) await quiet();
    this.effects.downloadsCompleted = this.effects.downloads.filter((g) => downloadByGuid(this.rec.controller ?? "", g)?.state === "completed").length;
    if (ids.length > 0 && !this.effects.dialog) void runInWorld(this.session, this.mainFrameId, QUIET_SOURCE, { op: "poll", ids, finish: true }).catch(() => null);
    for (const f of frames) if (!this.effects.dialog) void runInWorld(f.session, f.frameId, QUIET_SOURCE, { op: "poll", ids: [f.id], finish: true }).catch(() => null);
    this.effects.mutations += mutations + frameMutations;
  }

  /**
   * Polls the page's observers and waits between polls here, in the broker: the page's own
   * timers are throttled when its tab is in the background.
   */
  private async waitQuiet(session: CdpSession, frameId: string, ids: number[]): Promise<{ mutations: number } | null> {
    const started = Date.now();
    for (;;) {
      const finish = Date.now() - started >= DOM_QUIET_MAX_MS;
      const q = await runInWorld<{ quietFor: number; mutations: number; animating?: number; framesQuiet?: number } | null>(session, frameId, QUIET_SOURCE, { op: "poll", ids, finish }).catch(() => null);
      // Quiet: long enough, for three rendered frames (unless the page renders none), and no animation the action began.
      const framesOk = q?.framesQuiet === undefined || q.framesQuiet < 0 || q.framesQuiet >= QUIET_FRAMES;
      if (!q || finish || this.effects.dialog || this.effects.navigation || (q.quietFor >= DOM_QUIET_MS && framesOk && !q.animating)) return q;
      // While an animation runs, look again about once a frame; else when the quiet period could end.
      const wait = q.quietFor >= DOM_QUIET_MS ? 20 : DOM_QUIET_MS - q.quietFor;
      await Bun.sleep(Math.max(5, Math.min(wait, DOM_QUIET_MAX_MS - (Date.now() - started))));
    }
  }

  async stop(): Promise<void> {
    for (const off of this.offs) off();
    // With a dialog open the renderer answers nothing; do not wait for it.
    const disable = this.session.send("Network.disable").catch(() => undefined);
    if (!this.effects.dialog) await disable;
    void this.browser;
    void this.rec;
  }
}
