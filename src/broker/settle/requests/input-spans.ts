/** When one action is near an input, on our clock. */

/** How long after an input was acknowledged a request of the poll's own call site may still be the action's. */
export const INPUT_SLACK_MS = 50;

/** Our clock (ms), the one input windows and delivery delays are read on. */
export type Clock = () => number;
export const wallClock: Clock = () => performance.now();

/** `text`: the input typed text (inserted text, a printable key into a field), not a click, Enter, Tab or a chord. */
type Span = { start: number; end: number; text?: true };
const openSpan = (spans: Span[], now: number, text = false): void => {
  if (spans.at(-1)?.end !== Infinity)
    spans.push({ start: now, end: Infinity, ...(text ? { text: true as const } : {}) });
};
const closeSpan = (spans: Span[], now: number): void => {
  const w = spans.at(-1);
  if (w && w.end === Infinity) w.end = now + INPUT_SLACK_MS;
};

export class InputSpans {
  /** The action's inputs, from when each went out until INPUT_SLACK_MS after its acknowledgement. */
  private readonly windows: Span[] = [];
  /** The action's dispatches less the settles inside them, likewise. */
  private readonly dispatches: Span[] = [];
  private dispatching_ = false;
  /** The action sends its inputs as steps (stepping()): only they are near an input. */
  private stepwise = false;

  constructor(readonly now: Clock = wallClock) {}

  /** The action's dispatch begins. */
  dispatching(stepwise = false): void {
    this.dispatching_ = true;
    if (stepwise) {
      this.stepwise = true;
      openSpan(this.dispatches, this.now());
    } else this.open();
  }

  /** The dispatch returned. */
  dispatched(): void {
    this.close();
    this.dispatching_ = false;
  }

  /** A composite action settles between its inputs. */
  settling(): void {
    this.close();
  }

  settled(): void {
    if (!this.dispatching_) return;
    if (this.stepwise) openSpan(this.dispatches, this.now());
    else this.open();
  }

  /** One input of a composite action goes out (a key, the text, Enter, a click on an option), and was acknowledged. */
  stepping(text = false): void {
    this.stepwise = true;
    this.close(false);
    this.open(text);
  }

  stepped(): void {
    this.close(!this.dispatching_);
  }

  /**
   * The first input, sent before the dispatch (with the locate call) and closed, sent nothing after all (a setter that
   * found nothing to set): no window near it, and no dispatch span, whatever the dispatch opened since.
   */
  withdrawFirst(): void {
    if (this.windows[0] && this.windows[0].end !== Infinity) this.windows.shift();
    if (this.dispatches[0] && this.dispatches[0].end !== Infinity) this.dispatches.shift();
  }

  /** Whether a moment of our clock is near one of the action's inputs. */
  nearInput(at: number): boolean {
    return within(this.windows, at);
  }

  /** What input a moment of our clock is near, judged by the latest one before it. */
  nearWhich(at: number): "command" | "text" | undefined {
    const last = this.windows.findLast((w) => at >= w.start - 1);
    if (last === undefined || at > last.end) return undefined;
    return last.text ? "text" : "command";
  }

  /** Whether a moment of our clock is inside the action's dispatch (less its settles). */
  inDispatch(at: number): boolean {
    return within(this.dispatches, at);
  }

  /** Opens (or keeps open) the window near an input, and the dispatch's span. */
  private open(text = false): void {
    openSpan(this.windows, this.now(), text);
    openSpan(this.dispatches, this.now());
  }

  /** Closes the window near an input; the dispatch's span too unless (`span` false) the dispatch goes on. */
  private close(span = true): void {
    closeSpan(this.windows, this.now());
    if (span) closeSpan(this.dispatches, this.now());
  }
}

const within = (spans: Span[], at: number): boolean => spans.some((w) => at >= w.start - 1 && at <= w.end);
