import type { CdpSession } from "../cdp/session.ts";
import type { AnyOpResult, OpArg } from "../page/ops.ts";
import type { ElementFns, PageOps, PageStep, WindowFns } from "../page/runtime.ts";
import { BpError } from "../shared/errors.ts";
import type { FrameWorld } from "./frame-world.ts";
import { callPage } from "./world.ts";

/**
 * Typed calls into the page runtime: a step's argument and result are its page function's (or op's) own. The page
 * answers as JSON, so this is the one place that takes the answer as the function's type.
 */
type Fns = ElementFns & WindowFns;
export type PageFnName = keyof Fns;
export type ElementFnName = keyof ElementFns;

type OpFnName = keyof PageOps;

export type PageArg<F extends PageFnName> = F extends OpFnName
  ? OpArg<PageOps[F]>
  : F extends ElementFnName
    ? Parameters<ElementFns[F]>[2]
    : F extends keyof WindowFns
      ? Parameters<WindowFns[F]>[1]
      : never;

/** What a step of `F` with argument `A` answers: for an ops function, the op `A` names (any op's answer when `A` names none). */
export type PageResult<F extends PageFnName, A = PageArg<F>> = F extends OpFnName
  ? A extends { op: infer K extends keyof PageOps[F] }
    ? PageOps[F][K] extends { result: infer R }
      ? R
      : never
    : AnyOpResult<PageOps[F]>
  : Awaited<ReturnType<Fns[F]>>;

export interface Step<F extends PageFnName = PageFnName, A extends PageArg<F> = PageArg<F>> extends PageStep {
  fn: F;
  arg?: A;
}

/** Where a step runs: on a ref's element, on the element an earlier call left in a slot, or (with `when`) only once a settle step said settled. */
export interface StepAt {
  ref?: number;
  slot?: string;
  when?: { step: number };
  unlessFocused?: true;
}

export function step<F extends PageFnName, A extends PageArg<F>>(fn: F, arg: A, at: StepAt = {}): Step<F, A> {
  return { fn, ...(arg !== undefined ? { arg } : {}), ...at };
}

/** A call's results, one per step: null for a step held back by `when`; after a failed `ref` step no later step ran. */
export type Results<S extends readonly PageStep[]> = { [K in keyof S]: StepResult<S[K]> | null | undefined };

export type StepResult<S> = S extends { fn: infer F extends PageFnName; arg?: infer A } ? PageResult<F, A> : unknown;

export interface TypedReply<S extends readonly PageStep[]> {
  doc: string;
  otherDocument?: true;
  results: Results<S>;
}

/** Runs typed steps in one frame's world in one round trip (callPage), with each result typed by its function. */
export async function callSteps<const S extends readonly PageStep[]>(
  session: CdpSession,
  frameId: string,
  steps: S,
  opts?: Parameters<typeof callPage>[3],
): Promise<TypedReply<S>> {
  const reply = await callPage(session, frameId, [...steps], opts);
  return { ...reply, results: answers<S>(reply.results) };
}

/** Runs one page function in a frame's world: its result as the function returns it. */
export async function callFn<F extends PageFnName, A extends PageArg<F>>(
  world: Pick<FrameWorld, "session" | "frameId">,
  fn: F,
  arg: A,
  at: StepAt = {},
  opts?: Parameters<typeof callPage>[3],
): Promise<PageResult<F, A>> {
  const reply = await callPage(world.session, world.frameId, [step(fn, arg, at)], opts);
  return answer<F, A>(reply.results[0]);
}

/** Steps that ran in one call and their results, in order (a located ref's: the steps that rode on its check). */
export interface Ran {
  steps: readonly PageStep[];
  results: readonly unknown[];
}

/** The answer of the step at `index`, typed by its function and op (a wrong index is an internal error). */
export function stepResult<F extends OpFnName, K extends keyof PageOps[F] & string>(
  ran: Ran,
  index: number,
  fn: F,
  op: K,
): PageResult<F, { op: K }> {
  const s = ran.steps[index];
  const named = s?.arg && "op" in s.arg ? s.arg.op : undefined;
  if (s?.fn !== fn || named !== op || index >= ran.results.length)
    throw new BpError("internal_error", `No ${fn} ${op} step ran at ${index} of the page call.`);
  return answer<F, { op: K }>(ran.results[index]);
}

/** As stepResult for a step that may not have run (held back, or cut short by a dialog or navigation). */
export function readResult<F extends OpFnName, K extends keyof PageOps[F] & string>(
  ran: Ran,
  index: number,
  fn: F,
  op: K,
): PageResult<F, { op: K }> | null | undefined {
  const r = ran.results[index];
  if (r === undefined || r === null) return r;
  return stepResult(ran, index, fn, op);
}

function answers<S extends readonly PageStep[]>(results: unknown[]): Results<S> {
  return results as Results<S>;
}

function answer<F extends PageFnName, A>(result: unknown): PageResult<F, A> {
  return result as PageResult<F, A>;
}
