import type { PageStep } from "../../page/runtime.ts";
import type { FrameAt } from "./watchers.ts";

/** A step of a composite action: settle, then run `also` in the top document's last settle call. */
export interface StepPolicy {
  deadline: number;
  also?: PageStep[];
  /** Text went in: settled a frame after the last change, no timer floor. */
  typing?: boolean;
}

/** A settle between two steps of a composite action: its step policy, less the deadline (the command's). */
export type StepSettle = Omit<StepPolicy, "deadline">;

/** A composite action's steps: each `yield` settles the page and gets back its `also` results (none after a navigation or dialog). */
export type Steps<S> = AsyncGenerator<StepSettle, S, unknown[] | undefined>;

/** Page steps to run before the snapshot, in its call (observe/collect.ts fills `results`). */
export interface SettleCall {
  steps: PageStep[];
  snapshotWhen?: PageStep["when"];
  results?: unknown[];
}

/** The settle before an action's reply. */
export interface ReplyPolicy<O> {
  reply: true;
  deadline: number;
  typing: boolean;
  /** Read back once settled, in the settle call (the target's own frame's, when it is another). */
  readback: PageStep[];
  /** The located target's frame. */
  target?: FrameAt | undefined;
  /** Observes, running `call` first in the same page call; none: the reply does not observe. */
  observe?: ((call: SettleCall | undefined) => Promise<O | undefined>) | undefined;
}

export interface ReplySettled<O> {
  observation: O | undefined;
  /** The read-back's results as they came (the caller drops them after a navigation or dialog). */
  readback: unknown[];
  /** A navigation whose document has not committed within the bound. */
  pending?: { url?: string; ms: number } | undefined;
}
