import { diffSnapshots } from "../../page/diff.ts";
import { compactEntry, compactSnapshotJson, formatDiffHuman, formatSnapshotHuman } from "../../page/format.ts";
import { BpError } from "../../shared/errors.ts";
import { collectSnapshot, currentObservation, frameSessions, type Root } from "../observe/collect.ts";
import { listFrames, rootForFrame } from "../observe/frame-list.ts";
import { selectedTab, type Selected } from "./resolve.ts";
import { arg, type CallContext, type Handler } from "./types.ts";

const MAX_URL = 500;
const MAX_TITLE = 300;

export interface ObserveOptions {
  limit: number;
  expand?: number;
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
    const { result, previous } = await collectSnapshot(browser, rec, agent, root, obs, { limit: opts.limit, ...(opts.expand ? { expand: [opts.expand] } : {}) });
    rec.url = result.url;
    rec.title = result.title;
    const out: Record<string, unknown> = { tab: id, ...compactSnapshotJson(result, { boxes: opts.boxes === true }) };
    // Page-derived strings are bounded like everything else we print.
    if (result.url.length > MAX_URL) {
      out.url = `${result.url.slice(0, MAX_URL)}…`;
      out.urlTruncated = true;
    }
    if (result.title.length > MAX_TITLE) out.title = `${result.title.slice(0, MAX_TITLE)}…`;
    if (result.truncated) out.hint = `Showing ${countListed(result.elements)} of ${result.totalCandidates}; use --limit ${Math.min(10_000, result.totalCandidates)}, 'bp frame <n>', or 'bp find <css>' to narrow.`;
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

const snapshot: Handler = {
  run: (ctx) =>
    observe(ctx, {
      limit: arg<number>(ctx, "limit"),
      diff: arg<boolean>(ctx, "diff"),
      boxes: arg<boolean>(ctx, "boxes"),
      ...(arg<number | undefined>(ctx, "expand") !== undefined ? { expand: arg<number>(ctx, "expand") } : {}),
    }),
};

const frame: Handler = {
  async run(ctx) {
    const { browser, agent, rec } = selectedTab(ctx);
    const session = await browser.session(rec);
    await frameSessions(rec, session).ensure();
    const frames = await listFrames(rec, session);
    const selectedId = agent.frames.get(rec.targetId);
    const index = arg<number | undefined>(ctx, "index");
    if (index === undefined) {
      return { frames: frames.map((f, i) => ({ index: i, url: f.url, name: f.name, ...(f.parent !== undefined ? { parent: f.parent } : {}), crossOrigin: f.session !== session, selected: selectedId === undefined ? i === 0 : f.id === selectedId })) };
    }
    const chosen = frames[index];
    if (!chosen) throw new BpError("invalid_argument", `Frame index out of range (0-${frames.length - 1}).`, { context: { field: "index" } });
    if (index === 0) agent.frames.delete(rec.targetId);
    else agent.frames.set(rec.targetId, chosen.id);
    // Refs belong to the frame they were observed in; a new scope starts a new observation.
    agent.observations.delete(rec.targetId);
    return { frame: index, url: chosen.url };
  },
};

export const OBSERVE_HANDLERS: Record<string, Handler> = { snapshot, frame };
