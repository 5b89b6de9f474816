/**
 * Page functions that answer per `op` keep their ops in a table, each with its own argument and answer, so the broker
 * types a step by function and op (broker/page-fns.ts) rather than the union of all ops.
 */
import type { ActElement, ActWindow } from "./act/dom.ts";

/** An element script's op: the window, the element (or null) and the step's argument. */
type Op = (win: ActWindow, el: ActElement | null, arg: never) => unknown;
export type OpTable = Record<string, Op>;

/** Per op: what it takes besides `op`, and what it answers (awaited: the runtime awaits every step). */
export type OpSpecs = Record<string, { arg: object; result: unknown }>;

/** What an op takes besides `op`; an op without an argument takes nothing else. */
type OwnArg<H> = H extends (win: never, el: never, arg: infer A) => unknown ? (unknown extends A ? object : A) : object;

/** An op table's ops, as the broker types them. */
export type SpecsOf<T extends OpTable> = {
  [K in keyof T & string]: { arg: OwnArg<T[K]>; result: Awaited<ReturnType<T[K]>> };
};

export type OpArg<S extends OpSpecs> = { [K in keyof S & string]: { op: K } & S[K]["arg"] }[keyof S & string];

export type AnyOpResult<S extends OpSpecs> = S[keyof S]["result"];

type Loose = (win: ActWindow, el: ActElement | null, arg: object) => unknown;

/** The op the argument names, if the table has it. */
export function opOf<T extends OpTable>(table: T, arg: { op?: string }): Loose | undefined {
  const op = arg.op;
  return typeof op === "string" && Object.prototype.hasOwnProperty.call(table, op) ? (table[op] as Loose) : undefined;
}
