/**
 * Page functions that answer per `op` (act, edit, select, upload, drag) keep their ops in a
 * table: each op is a function of its own, with its own argument and answer, so the broker
 * types a step by its function and op (src/broker/page-fns.ts reads these tables' types)
 * instead of taking the union of every op's answer.
 */
import type { ActElement, ActWindow } from "./act-dom.ts";

/** An element script's op: the window, the element (or null) and the step's argument. */
type Op = (win: ActWindow, el: ActElement | null, arg: never) => unknown;
export type OpTable = Record<string, Op>;

/** What an op takes besides `op`; an op without an argument takes nothing else. */
type OwnArg<H> = H extends (win: never, el: never, arg: infer A) => unknown ? (unknown extends A ? object : A) : object;

/** A step's argument for an op table: one op's own argument, named by `op`. */
export type OpArg<T extends OpTable> = { [K in keyof T & string]: { op: K } & OwnArg<T[K]> }[keyof T & string];

/** What one op answers (awaited: the runtime awaits every step). */
export type OpResult<T extends OpTable, K extends keyof T> = Awaited<ReturnType<T[K]>>;

/** Any op's answer. */
export type AnyOpResult<T extends OpTable> = { [K in keyof T]: OpResult<T, K> }[keyof T];

type Loose = (win: ActWindow, el: ActElement | null, arg: object) => unknown;

/** The op the argument names, if the table has it. */
export function opOf<T extends OpTable>(table: T, arg: { op?: string }): Loose | undefined {
  const op = arg.op;
  // The table's ops each take their own argument; the step's `op` says which one this is.
  return typeof op === "string" && Object.prototype.hasOwnProperty.call(table, op) ? (table[op] as Loose) : undefined;
}
