import type { CdpSession } from "../../cdp/session.ts";
import { BpError } from "../../shared/errors.ts";
import type { Selected } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import type { PageStep } from "../../page/runtime.ts";
import { callPage } from "../world.ts";
import { step, stepResult } from "../page-fns.ts";
import { callInFrame, frameLoader } from "./frame-call.ts";
import type { FrameWorld } from "../frame-world.ts";
import type { Settler } from "../settle/settler.ts";

export type PinReason =
  | "cancelled"
  | "browser_reconnected"
  | "target_closed"
  | "session_replaced"
  | "dialog_opened"
  | "navigation"
  | "document_replaced"
  | "frame_detached"
  | "frame_changed"
  | "focus_changed"
  | "target_detached";

export interface StepOptions {
  /** It changes the page (default): the quiet watcher is armed first, and a failure part-way is unknown_outcome. */
  mutates?: boolean;
  also?: PageStep[];
  /** The page call that just returned pinned the focus (or proved it): only what the broker knows is checked. */
  fresh?: boolean;
  /** It types text (the text, a printable key, the clear before it): what the page sends then, such as a typing indicator, answers no command (settle/requests/requests.ts). */
  text?: boolean;
}

/**
 * Holds a composite action (clear → type → submit, key sequences) to the page and focus it started on. Every step
 * checks the pin first; after a change no step is sent (action_not_verified before the first mutation, unknown_outcome
 * after).
 */
export class CompositePin {
  readonly completed: string[] = [];
  private mutated = false;
  private navigating = false;
  private readonly offs: (() => void)[] = [];

  private constructor(
    private readonly ctx: CallContext,
    private readonly sel: Selected,
    private readonly watch: Settler,
    readonly top: CdpSession,
    readonly frame: FrameWorld,
    readonly mainFrameId: string,
    private readonly frameLoaderId: string | undefined,
    readonly token: string,
    private readonly action: string,
  ) {}

  /** Pins the page as it is now. The page-side slot with `token` must already exist (the page edit script's "prepare"/"active"). */
  static async capture(
    ctx: CallContext,
    sel: Selected,
    watch: Settler,
    top: CdpSession,
    frame: FrameWorld,
    token: string,
    action: string,
  ): Promise<CompositePin> {
    // The frame tree and the focus pin go out together: one round trip.
    const [{ frameTree }] = await Promise.all([
      top.send("Page.getFrameTree"),
      callInFrame(frame, "edit", { op: "pin", token }),
    ]);
    const main = frameTree.frame;
    const frameLoaderId = frame.frameId === main.id ? main.loaderId : await frameLoader(frame.session, frame.frameId);
    return CompositePin.listen(
      new CompositePin(ctx, sel, watch, top, frame, main.id, frameLoaderId, token, action),
      main.url,
    );
  }

  /**
   * Pins the page as the slot's "prepare"/"active" step found it, in the call that just
   * returned: that step kept the focused element, so in the top document the pin costs no
   * call of its own (`url`: the document's, which that step also answered). A field in a frame
   * is pinned by capture (its loader is read). The ref's locate call already checked the
   * document, and a new one has no slot: the next page-side check says so.
   */
  static async prepared(
    ctx: CallContext,
    sel: Selected,
    watch: Settler,
    top: CdpSession,
    frame: FrameWorld,
    token: string,
    action: string,
    url: string,
  ): Promise<CompositePin> {
    if (frame.frameId !== watch.mainFrameId || frame.session !== top)
      return CompositePin.capture(ctx, sel, watch, top, frame, token, action);
    return CompositePin.listen(
      new CompositePin(ctx, sel, watch, top, frame, watch.mainFrameId, undefined, token, action),
      url,
    );
  }

  private static listen(pin: CompositePin, mainUrl: string): CompositePin {
    const { frame, mainFrameId, top } = pin;
    const main = { id: mainFrameId, url: mainUrl };
    const stripHash = (u: string) => u.replace(/#.*$/, "");
    const watched = new Set([main.id, frame.frameId]);
    for (const s of new Set([top, frame.session])) {
      // A navigation is pending from the moment it is requested, long before a new loader commits.
      pin.offs.push(
        s.on("Page.frameRequestedNavigation", (p) => {
          if (watched.has(p.frameId) && p.disposition === "currentTab" && stripHash(p.url) !== stripHash(main.url))
            pin.navigating = true;
        }),
        s.on("Page.frameStartedLoading", (p) => {
          if (watched.has(p.frameId)) pin.navigating = true;
        }),
      );
    }
    return pin;
  }

  dispose(): void {
    for (const off of this.offs) off();
  }

  private async brokerCheck(): Promise<PinReason | undefined> {
    const { browser, rec } = this.sel;
    // A deadline or cancel already answered the agent: nothing more may be sent.
    if (this.ctx.signal.aborted) return "cancelled";
    if (browser.closed || this.ctx.broker.browser !== browser) return "browser_reconnected";
    if (!browser.targets.byId.has(rec.targetId)) return "target_closed";
    if (this.top.closed || (await browser.session(rec)) !== this.top) return "session_replaced";
    if (this.frame.session.closed) return "frame_detached";
    if (this.watch.effects.dialog || rec.dialog) return "dialog_opened";
    // The action's watch saw the main frame start navigating (it subscribed before the locate call).
    if (this.navigating || this.watch.effects.navigation) return "navigation";
    return undefined;
  }

  /** What changed since the pin, or undefined; the page check first (its reply flushes earlier events). */
  async check(also: PageStep[] = []): Promise<PinReason | undefined> {
    const { rec } = this.sel;
    const early = await this.brokerCheck();
    if (early) return early;
    // A page blocked by a dialog answers nothing, so the dialog ends the wait.
    const steps = [step("edit", { op: "check", token: this.token }), ...also];
    const page = await Promise.race([
      callPage(this.frame.session, this.frame.frameId, steps)
        .then((r) => stepResult({ steps, results: r.results }, 0, "edit", "check"))
        .catch(() => ({ ok: false, reason: "document_replaced" as const })),
      this.watch.dialogOpened.then(() => ({ ok: false, reason: "dialog_opened" as const })),
    ]);
    if (this.watch.effects.dialog || rec.dialog) return "dialog_opened";
    if (this.navigating) return "navigation";
    // A new main document was caught above (its events precede the reply): no frame tree read needed.
    if (this.frame.frameId !== this.mainFrameId) {
      const loader = await frameLoader(this.frame.session, this.frame.frameId);
      if (loader === undefined) return "frame_detached";
      if (loader !== this.frameLoaderId) return "frame_changed";
    }
    if (!page.ok) return page.reason ?? "document_replaced";
    return undefined;
  }

  /** Runs one step after checking the pin; a dialog the step opens ends the wait. */
  async step(
    name: string,
    remaining: readonly string[],
    dispatch: () => Promise<unknown>,
    o: StepOptions = {},
  ): Promise<void> {
    const { mutates = true, also = [], fresh = false, text = false } = o;
    // The DOM-quiet watcher rides on the check's page call when the edit is in the top document.
    const inTop = this.frame.frameId === this.mainFrameId && this.frame.session === this.top;
    const reason =
      fresh && also.length === 0
        ? await this.brokerCheck()
        : await this.check([...(mutates && inTop && !this.watch.armed ? [this.watch.quietStep()] : []), ...also]);
    if (reason) throw this.interrupted(name, reason, remaining);
    if (mutates) {
      if (!this.watch.armed) await this.watch.armQuiet();
      this.mutated = true;
    }
    // Near this input, not the checks and waits around it, a poll's extra request may be the action's.
    const sent = this.watch.input(dispatch, true, text);
    sent.catch(() => undefined);
    try {
      await Promise.race([sent, this.watch.dialogOpened]);
    } catch (err) {
      if (!mutates) throw err;
      throw new BpError(
        "unknown_outcome",
        `Sending '${name}' failed part-way (${err instanceof Error ? err.message.slice(0, 200) : "error"}); it may or may not have taken effect.`,
        {
          retryable: true,
          context: {
            action: this.action,
            step: name,
            reason: "dispatch_failed",
            completedSteps: [...this.completed],
            remainingStepsStopped: [...remaining],
          },
        },
      );
    }
    this.completed.push(name);
  }

  interrupted(step: string, reason: PinReason, remaining: readonly string[]): BpError {
    const dialog = this.sel.rec.dialog;
    const extra = dialog ? { dialog: dialog.id } : {};
    if (!this.mutated) {
      return new BpError(
        "action_not_verified",
        `The page changed (${reason.replace("_", " ")}) before '${this.action}' changed anything; nothing was typed.`,
        {
          retryable: true,
          context: {
            action: this.action,
            step,
            reason,
            dispatched: false,
            completedSteps: [...this.completed],
            ...extra,
          },
          hint: "Run 'bp snapshot' and retry on the current page.",
        },
      );
    }
    const stopped = [step, ...remaining];
    return new BpError(
      "unknown_outcome",
      `The page changed (${reason.replace("_", " ")}) after '${this.completed.at(-1) ?? step}'; ${stopped.map((s) => `'${s}'`).join(", ")} not sent.`,
      {
        retryable: true,
        context: {
          action: this.action,
          step,
          reason,
          completedSteps: [...this.completed],
          remainingStepsStopped: stopped,
          ...extra,
        },
        hint: "Inspect the page ('bp snapshot') before deciding whether anything remains to be done; nothing is replayed for you.",
      },
    );
  }
}
