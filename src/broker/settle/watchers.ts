import { outsideCallScope } from "../../cdp/scope.ts";
import type { CdpSession } from "../../cdp/session.ts";
import type { PageStep } from "../../page/runtime.ts";
import { callFn, readResult } from "../page-fns.ts";
import { callPage } from "../world.ts";
import type { QuietPoll } from "./effects.ts";

/** The page's settle step (src/page/settle/settle.ts) ends a rendered frame after the action's synchronous changes. */
export const DOM_QUIET_MS = 50;
export const SYNC_QUIET_MS = 20;
export const QUIET_FRAMES = 3;
export const DOM_QUIET_MAX_MS = 1_000;
/** Requests the action started get this long to finish before we observe anyway. */
export const NETWORK_MAX_MS = 3_000;
/** A settled watcher lingers this long so a later settle (after the network) can use it, then disconnects by itself. */
export const WATCH_LINGER_MS = NETWORK_MAX_MS + DOM_QUIET_MAX_MS + 2_000;
/** Disconnecting a failed action's watchers: nobody waits for it. */
const FINISH_MS = 2_000;

/** Unique in this broker: an earlier action's watcher may still linger in the page under its id. */
let lastWatcherId = 0;
export const nextWatcherId = (): number => ++lastWatcherId;

export interface FrameAt {
  session: CdpSession;
  frameId: string;
}

/** What the watchers read of their settler. */
export interface WatcherHost {
  readonly session: CdpSession;
  readonly mainFrameId: string;
  readonly dialogOpened: Promise<void>;
  readonly dialog: boolean;
  /** When the last of the action's requests ended (0: none). */
  readonly responded: number;
}

/** The DOM-quiet watchers an action armed in the page: in the top document and in the target's own frame. */
export class Watchers {
  private quietIds: number[] = [];
  /** Replaced by rearmSteps(); finished again at stop() in case that call never went out. */
  private readonly retiring: { at: FrameAt; ids: number[] }[] = [];
  private frameQuiet: (FrameAt & { id: number })[] = [];
  /**
   * Each frame watcher's latest count once settleFrames settled it, by watcher id: a later poll's count is the same
   * watcher's since its arm, of which the page may since have learnt some as its own churn.
   */
  private readonly frameSettled = new Map<number, number>();

  constructor(private readonly host: WatcherHost) {}

  get armed(): boolean {
    return this.quietIds.length > 0;
  }

  /** Installs a top-document watcher inside a page call the action makes anyway. */
  quietStep(): PageStep {
    const id = nextWatcherId();
    this.quietIds.push(id);
    return { fn: "quiet", arg: { op: "install", id } };
  }

  /** The same in the target's own frame (its mutations are not the top document's). */
  frameQuietStep(frame: FrameAt): PageStep {
    const id = nextWatcherId();
    this.frameQuiet.push({ session: frame.session, frameId: frame.frameId, id });
    return { fn: "quiet", arg: { op: "install", id } };
  }

  /** Arms a frame watcher with a call of its own (a same-origin child frame, whose world is not the locate call's). */
  armFrame(frame: FrameAt): Promise<void> {
    return callPage(frame.session, frame.frameId, [this.frameQuietStep(frame)]).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Arms with a call of its own, awaited: a one-message input would otherwise outrun the watcher. */
  armQuiet(frame?: FrameAt): Promise<void> {
    const { session, mainFrameId } = this.host;
    const step = this.quietStep();
    const own = frame && frame.frameId !== mainFrameId ? frame : undefined;
    const install = (at: FrameAt, st: PageStep) =>
      callPage(at.session, at.frameId, [st]).then(
        () => undefined,
        () => undefined,
      );
    return Promise.all([
      install({ session, frameId: mainFrameId }, step),
      ...(own ? [install(own, this.frameQuietStep(own))] : []),
    ]).then(() => undefined);
  }

  /** Steps that end the watchers armed so far and arm a new one, so a focusing click's effects are not taken for the next step's. */
  rearmSteps(frame?: FrameAt, o: { hold?: number } = {}): PageStep[] {
    const { session, mainFrameId } = this.host;
    const inFrame = frame !== undefined && (frame.frameId !== mainFrameId || frame.session !== session);
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
    if (old.length > 0) this.retiring.push({ at: inFrame ? frame : { session, frameId: mainFrameId }, ids: old });
    const hold =
      o.hold !== undefined && old.length > 0
        ? [{ fn: "quiet" as const, arg: { op: "hold" as const, ids: old, timerQuietFor: o.hold } }]
        : [];
    return [
      ...hold,
      ...(old.length > 0 ? [{ fn: "quiet" as const, arg: { op: "poll" as const, ids: old, finish: true } }] : []),
      fresh,
    ];
  }

  /** The call carrying rearmSteps() answered: the replaced watchers are gone. */
  retired(): void {
    this.retiring.length = 0;
  }

  takeQuiet(): number[] {
    const ids = this.quietIds;
    this.quietIds = [];
    return ids;
  }

  /** A watcher a late wait installed, to settle on next. */
  adopt(frame: FrameAt, id: number): void {
    if (frame.frameId === this.host.mainFrameId) this.quietIds.push(id);
    else this.frameQuiet.push({ ...frame, id });
  }

  takeFrames(): (FrameAt & { id: number })[] {
    return this.frameQuiet.splice(0);
  }

  /** The page step that waits in the page until the watchers' DOM is settled (bounded by `max` and the deadline). */
  settleStep(ids: number[], o: { max: number; deadline: number; typing?: boolean }): PageStep {
    const max = Math.max(0, Math.min(o.max, o.deadline - Date.now() - 500));
    // A response is taken like an input event: what its handler starts runs from then on.
    const responded = this.host.responded;
    const sinceResponse = responded > 0 && !o.typing ? { sinceResponse: Date.now() - responded } : {};
    const kind = o.typing ? { idle: true } : { click: true, idle: true };
    return {
      fn: "quiet",
      arg: {
        op: "settle",
        ids,
        quietFor: DOM_QUIET_MS,
        syncQuietFor: 0,
        timerQuietFor: SYNC_QUIET_MS,
        frames: QUIET_FRAMES,
        max,
        linger: WATCH_LINGER_MS,
        ...sinceResponse,
        ...kind,
      },
    };
  }

  /** Settles in the page; `also` runs in the same call once settled (their results, else undefined). */
  waitQuiet(
    at: FrameAt,
    ids: number[],
    deadline: number,
    also: PageStep[] = [],
    typing = false,
  ): Promise<{ poll: QuietPoll | null; also?: unknown[] }> {
    if (ids.length === 0) return Promise.resolve({ poll: null });
    const step = this.settleStep(ids, { max: DOM_QUIET_MAX_MS, deadline, typing });
    const later = also.map((st) => ({ ...st, when: { step: 0 } }));
    return callPage(at.session, at.frameId, [step, ...later]).then(
      (r) => {
        const poll = readResult({ steps: [step], results: r.results }, 0, "quiet", "settle") ?? null;
        return poll?.settled === true && later.length > 0 ? { poll, also: r.results.slice(1) } : { poll };
      },
      () => ({ poll: null }),
    );
  }

  /** Settles the target-frame watchers in their own frames, beside the top document's settle. */
  settleFrames(
    deadline: number,
    typing: boolean,
    also?: { frame: FrameAt; steps: PageStep[] },
  ): Promise<{ polls: (QuietPoll | null)[]; also?: unknown[] }> | undefined {
    const frames = [...this.frameQuiet];
    if (frames.length === 0 || this.host.dialog) return undefined;
    const mine = (f: FrameAt) =>
      also !== undefined && f.session === also.frame.session && f.frameId === also.frame.frameId;
    const settles = Promise.all(
      frames.map((f) => this.waitQuiet(f, [f.id], deadline, mine(f) && also ? also.steps : [], typing)),
    );
    return Promise.race([settles, this.host.dialogOpened.then(() => [])]).then((settled) => {
      settled.forEach((q, i) => {
        const f = frames[i];
        if (q.poll && f) this.frameSettled.set(f.id, q.poll.mutations);
      });
      const read = settled.find((q, i) => q.also !== undefined && frames[i] !== undefined && mine(frames[i]));
      return { polls: settled.map((q) => q.poll), ...(read?.also ? { also: read.also } : {}) };
    });
  }

  /** Ends the frame watchers: their mutations, from settleFrames or polled now. */
  async finishFrames(): Promise<number> {
    const frames = this.frameQuiet.splice(0);
    if (this.frameSettled.size > 0) {
      let n = 0;
      for (const k of this.frameSettled.values()) n += k;
      this.frameSettled.clear();
      return n;
    }
    if (this.host.dialog || frames.length === 0) return 0;
    const poll = (f: FrameAt & { id: number }) =>
      callFn({ session: f.session, frameId: f.frameId }, "quiet", {
        op: "poll",
        ids: [f.id],
        finish: true,
        after: 0,
      }).then(
        (r) => r ?? null,
        () => null,
      );
    const polls = await Promise.race([Promise.all(frames.map(poll)), this.host.dialogOpened.then(() => [])]);
    return polls.reduce((n, q) => n + (q?.mutations ?? 0), 0);
  }

  /** Disconnects what is still armed (a failed action), outside the command's scope and unanswered. */
  stop(): void {
    if (this.host.dialog) return;
    const finish = (at: FrameAt, ids: number[]) =>
      void outsideCallScope(() =>
        callPage(at.session, at.frameId, [{ fn: "quiet", arg: { op: "poll", ids, finish: true } }], {
          timeoutMs: FINISH_MS,
        }),
      ).catch(() => undefined);
    const ids = this.takeQuiet();
    if (ids.length > 0) finish({ session: this.host.session, frameId: this.host.mainFrameId }, ids);
    for (const f of this.frameQuiet.splice(0)) finish(f, [f.id]);
    for (const r of this.retiring.splice(0)) finish(r.at, r.ids);
  }
}
