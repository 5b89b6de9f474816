import type { CdpSession } from "../cdp/session.ts";
import type { ElementFns, PageStep, WindowFns } from "../page/runtime.ts";
import { callPage } from "./world.ts";

/**
 * Typed calls into the page runtime: a step names a bundled page function (src/page/dispatch.ts)
 * and its argument and result are that function's own (an element function's third parameter,
 * a window function's second; what it returns, awaited). The page answers over CDP as JSON, so
 * the one place that takes the answer as the function's type is here.
 */
type Fns = ElementFns & WindowFns;
export type PageFnName = keyof Fns;
export type ElementFnName = keyof ElementFns;

export type PageArg<F extends PageFnName> = F extends ElementFnName ? Parameters<ElementFns[F]>[2] : F extends keyof WindowFns ? Parameters<WindowFns[F]>[1] : never;
export type PageResult<F extends PageFnName> = Awaited<ReturnType<Fns[F]>>;

/** One step of a page call, carrying the function it names in its type. */
export interface Step<F extends PageFnName = PageFnName> extends PageStep {
  fn: F;
  arg?: PageArg<F>;
}

/** Where a step runs: on a ref's element, on the element an earlier call left in a slot, or (with `when`) only once a settle step said settled. */
export interface StepAt {
  ref?: number;
  slot?: string;
  when?: { step: number };
}

export function step<F extends PageFnName>(fn: F, arg: PageArg<F>, at: StepAt = {}): Step<F> {
  return { fn, ...(arg !== undefined ? { arg } : {}), ...at };
}

/**
 * A call's results, one per step: a step held back by `when` answers null, and after a `ref`
 * step that failed no later step ran.
 */
export type Results<S extends readonly PageStep[]> = { [K in keyof S]: S[K] extends Step<infer F> ? PageResult<F> | null | undefined : unknown };

export interface TypedReply<S extends readonly PageStep[]> {
  doc: string;
  otherDocument?: true;
  results: Results<S>;
}

/** Runs typed steps in one frame's world in one round trip (callPage), with each result typed by its function. */
export async function callSteps<const S extends readonly PageStep[]>(session: CdpSession, frameId: string, steps: S, opts?: Parameters<typeof callPage>[3]): Promise<TypedReply<S>> {
  const reply = await callPage(session, frameId, [...steps], opts);
  return { ...reply, results: answers<S>(reply.results) };
}

/** A frame's world (FrameRef and ref bindings have these). */
export interface World {
  session: CdpSession;
  frameId: string;
}

/** Runs one page function in a frame's world: its result as the function returns it. */
export async function callFn<F extends PageFnName>(world: World, fn: F, arg: PageArg<F>, at: StepAt = {}, opts?: Parameters<typeof callPage>[3]): Promise<PageResult<F>> {
  const reply = await callPage(world.session, world.frameId, [step(fn, arg, at)], opts);
  return answer<F>(reply.results[0]);
}

/** The page's JSON answer taken as the result type of the function that produced it. */
function answers<S extends readonly PageStep[]>(results: unknown[]): Results<S> {
  return results as Results<S>;
}

function answer<F extends PageFnName>(result: unknown): PageResult<F> {
  return result as PageResult<F>;
}
