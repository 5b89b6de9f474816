import { diffSnapshots } from "../../page/diff.ts";
import { compactEntry, compactSnapshotJson, formatDiffHuman, formatSnapshotHuman } from "../../page/format.ts";
import { selectedTab, type Selected } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { collectSnapshot, currentObservation, frameSessions, type Root } from "./collect.ts";
import { rootForFrame } from "./frame-list.ts";
import { MAX_TITLE, MAX_URL } from "../../shared/page-strings.ts";


export interface ObserveOptions {
  limit: number;
  expand?: number;
  find?: string;
  boxes?: boolean;
  diff?: boolean;
}

/** Takes a snapshot of the selected tab (or its selected frame) for this agent. */
export function observe(ctx: CallContext, opts: ObserveOptions): Promise<Record<string, unknown>> {
  const sel = selectedTab(ctx);
  return ctx.broker.exclusive(sel.rec.targetId, () => observeLocked(ctx, sel, opts));
}

/** The same, for callers that already hold the tab's queue (actions observing their result). */
export async function observeLocked(ctx: CallContext, sel: Selected, opts: ObserveOptions): Promise<Record<string, unknown>> {
  const { browser, agent, rec, id } = sel;
  {
    const session = await browser.session(rec);
    await frameSessions(rec, session).ensure();
    const { obs, mainFrameId, replaced } = await currentObservation(browser, rec, agent, session);
    const root: Root = await rootForFrame(rec, session, mainFrameId, obs.mainLoaderId, agent.frames.get(rec.targetId));
    const { result, previous } = await collectSnapshot(browser, rec, agent, root, obs, { limit: opts.limit, ...(opts.expand ? { expand: [opts.expand] } : {}), ...(opts.find ? { find: opts.find } : {}) });
    rec.url = result.url;
    rec.title = result.title;
    const out: Record<string, unknown> = { tab: id, ...compactSnapshotJson(result, { boxes: opts.boxes === true }) };
    // Page-derived strings are bounded like everything else we print.
    if (result.url.length > MAX_URL) {
      out.url = `${result.url.slice(0, MAX_URL)}…`;
      out.urlTruncated = true;
    }
    if (result.title.length > MAX_TITLE) out.title = `${result.title.slice(0, MAX_TITLE)}…`;
    if (result.truncated) out.hint = `Showing ${countListed(result.elements)} of ${result.totalCandidates}; use --limit ${Math.min(10_000, result.totalCandidates)}, --find <text>, 'bp frame <n>', or 'bp find <css>' to narrow.`;
    if (opts.diff) {
      if (previous) {
        const d = diffSnapshots(previous, result);
        out.elements = [];
        out.diff = {
          added: d.added.map((e) => compactEntry(e, { boxes: opts.boxes === true })),
          removed: d.removed,
          changed: d.changed.map((c) => ({ ...compactEntry(c.element), fields: c.fields })),
          unchanged: d.unchanged,
          ...(d.title !== undefined ? { title: d.title } : {}),
          ...(d.url !== undefined ? { url: d.url } : {}),
        };
        if (ctx.req.mode === "human") out.text = formatDiffHuman(d);
      } else {
        out.diffFallback = replaced ? "document_changed" : "no_previous_observation";
      }
    }
    if (ctx.req.mode === "human" && out.text === undefined) out.text = formatSnapshotHuman(result);
    return out;
  }
}

function countListed(elements: { kind: string; count?: number }[]): number {
  return elements.reduce((n, e) => n + (e.kind === "fold" ? (e.count ?? 0) : 1), 0);
}
