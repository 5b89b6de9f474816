/** The quiet watcher's ops, typed for the broker's steps like the op tables of src/page/ops.ts. */
import type { install } from "./quiet.ts";
import type { reply } from "./watched.ts";
import type { hold, late, settle } from "./settle.ts";

interface Watchers {
  ids: number[];
  /** Disconnect the watchers once done. */
  finish?: boolean;
}

export type QuietOps = {
  install: { arg: { id: number }; result: ReturnType<typeof install> };
  poll: { arg: Watchers & { after?: number }; result: ReturnType<typeof reply> | null };
  settle: {
    arg: Watchers & {
      quietFor?: number;
      frames?: number;
      syncQuietFor?: number;
      timerQuietFor?: number;
      sinceResponse?: number;
      click?: boolean;
      idle?: boolean;
      max?: number;
      linger?: number;
    };
    result: Awaited<ReturnType<typeof settle>> | null;
  };
  late: { arg: Watchers & { windowMs: number; linger?: number }; result: Awaited<ReturnType<typeof late>> | null };
  hold: { arg: Watchers & { timerQuietFor: number }; result: Awaited<ReturnType<typeof hold>> | null };
};
