import * as v from "valibot";
import { flag } from "./define.ts";

/** A navigation's look (open, back, forward, reload): the flags as the broker and the human text read them. */
export interface LookArgs {
  snapshot?: boolean;
  text?: boolean;
  limit?: number | undefined;
}

/** Whether the agent asked for the page's look with its navigation. */
export function wantsLook(a: LookArgs): boolean {
  return a.snapshot === true || a.text === true || a.limit !== undefined;
}

/** --snapshot, --text, --limit: the look that follows nearly every navigation, in its reply (saves a call). */
export const lookArgs = () => ({
  snapshot: flag("Also the new page's snapshot in the reply, as 'bp snapshot' gives it (saves a call)"),
  text: flag("The snapshot with its headings and text blocks, as 'bp snapshot --text' (implies --snapshot)"),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(10_000),
      v.description("Max elements of the snapshot (default 50; implies --snapshot)"),
    ),
  ),
});
