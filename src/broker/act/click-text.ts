import { click as command } from "../../protocol/commands-actions.ts";
import { readEntry } from "../../protocol/elements.ts";
import { invalidArgument } from "../../shared/errors.ts";
import type { BoundCall, CallContext, Handler } from "../context/types.ts";
import { selectedTab } from "../context/tabs.ts";
import { observe } from "../observe/snapshot.ts";

/** Candidates named in an ambiguous --text's error. */
const MAX_NAMED = 8;

/**
 * `bp click --text TEXT [--times N]`: the visible control named TEXT (else containing it), found by the snapshot's
 * `--find` so it gets a reusable ref; none or several is invalid_argument naming candidates. `--times` repeats (finding
 * the target again: a redrawn "Prev" has a new ref).
 */
export function withTextAndTimes(click: Handler): Handler {
  return {
    command,
    bind(raw): BoundCall {
      const bound = click.bind(raw);
      const text = bound.args.text as string | undefined;
      const times = (bound.args.times as number | undefined) ?? 1;
      if (text === undefined && times === 1) return bound;
      const { text: _t, times: _n, ...rest } = raw;
      return {
        args: bound.args,
        mutating: bound.mutating,
        ...(bound.dispatch ? { dispatch: bound.dispatch } : {}),
        async run(ctx) {
          let out: object = {};
          for (let i = 0; i < times; i++) {
            const ref = text === undefined ? rest.ref : await refByText(ctx, text);
            out = await click.bind({ ...rest, ref }).run(ctx);
            const evidence = (out as { evidence?: { status?: string } }).evidence;
            // A click that did not land ends the run: its reply says why.
            if (evidence?.status !== undefined && evidence.status !== "verified")
              return i + 1 > 1 ? { ...out, times: i + 1 } : out;
          }
          return times > 1 ? { ...out, times } : out;
        },
      };
    },
  };
}

type Entry = { r?: number; t?: string; n?: string; fold?: number };

async function refByText(ctx: CallContext, text: string): Promise<number> {
  // The click's diff is against what the agent saw last, not against the --find list.
  const obsOf = () => ctx.agent().observations.get(selectedTab(ctx).rec.targetId);
  const had = obsOf();
  const seen = had?.last;
  const found = await observe(ctx, { limit: 50, find: text });
  if (seen && obsOf() === had && had) had.last = seen;
  const listed = ((found.elements ?? []).map(readEntry) as Entry[]).filter(
    (e): e is Entry & { r: number } => e.fold === undefined && typeof e.r === "number" && e.t !== "iframe",
  );
  const want = text.trim().toLowerCase();
  const exact = listed.filter((e) => (e.n ?? "").trim().toLowerCase() === want);
  const named = exact.length > 0 ? exact : listed.filter((e) => (e.n ?? "").toLowerCase().includes(want));
  if (named.length === 1) return (named[0] as { r: number }).r;
  const candidates = (named.length ? named : listed).slice(0, MAX_NAMED).map((e) => ({ r: e.r, t: e.t, n: e.n ?? "" }));
  if (named.length === 0)
    throw invalidArgument(
      "text",
      `No visible control is named ${JSON.stringify(text)}.`,
      candidates.length ? { candidates } : {},
    );
  throw invalidArgument(
    "text",
    `${named.length} visible controls match ${JSON.stringify(text)}; click one by its ref.`,
    { candidates },
  );
}
