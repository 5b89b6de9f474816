/**
 * Smaller representations of the selected tab: `read`, `search`, `find`, `locate`.
 *
 * Each runs one self-contained page function in our isolated world of the agent's selected
 * frame (or the top document), so the page can neither see nor tamper with it. Boxes come back
 * in the frame's viewport px and get the frame's offset added (top-level viewport px, as
 * snapshot boxes). None of them creates refs or touches the agent's observation.
 *
 * `read`, `search` and `find` also cover cross-origin iframes, as `snapshot` does: the page
 * script reports each as a placeholder, and the same script runs in that frame's own session,
 * its result merged in document order with limits kept global (`broker/inspect/merge.ts`).
 * `locate` stays in the selected frame.
 */
import type { FindResult } from "../../page/inspect/find.ts";
import { leanElement, leanMatch } from "../inspect/lean.ts";
import { type Descend, mergeFind, mergeRead, mergeSearch } from "../inspect/merge.ts";
import type { FramePlaceholder, MatchPlace } from "../../page/inspect/tree.ts";
import type { InspectError, ReadResult } from "../../page/inspect/read.ts";
import type { SearchResult } from "../../page/inspect/search.ts";
import { FIND_DEFAULT_ATTRIBUTES, splitAttributes } from "../../protocol/commands-inspect.ts";
import { BpError } from "../../shared/errors.ts";
import { frameSessions } from "../observe/collect.ts";
import { listFrames, rootForFrame } from "../observe/frame-list.ts";
import { childWorld } from "../observe/frame-walk.ts";
import type { FrameWorld } from "../frame-world.ts";
import type { TabObservation } from "../refs.ts";
import { pageObject } from "../world.ts";
import { callFn, type PageArg, type PageResult } from "../page-fns.ts";
import type { TargetRecord } from "../targets.ts";
import { selectedTab } from "../context/tabs.ts";
import * as commands from "../../protocol/commands-inspect.ts";
import { defineHandler, type ReplyOf } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";
import { cutString, boundTitle, boundUrl } from "../../shared/page-strings.ts";

/** Nested cross-origin frames deeper than this, or beyond this many per command, are skipped (truncated). */
const MAX_FRAME_DEPTH = 4;
const MAX_FRAMES = 16;

const clampInt = (value: unknown, def: number, max: number): number => {
  const n = typeof value === "number" && Number.isFinite(value) ? Math.floor(value) : def;
  return Math.max(1, Math.min(max, n));
};

/** A frame a script runs in, and how deep in the walk. */
type Frame = FrameWorld & { depth: number };

/** One command's walk over frames: the frame budget, and the viewport matches are judged by. */
interface Walk {
  ctx: CallContext;
  rec: TargetRecord;
  left: number;
  skipped: boolean;
  viewport?: { w: number; h: number };
  /** Frame id → the number 'bp frame' lists, computed on first need. */
  frameIndex: () => Promise<Map<string, number>>;
  /** The agent's refs of the current document, to report only refs it was shown. */
  refs: () => Promise<TabObservation["refs"] | undefined>;
}

/** Runs `fn` on the agent's selected frame (or the top document), holding the tab. */
async function inTab<T>(
  ctx: CallContext,
  fn: (walk: Walk, root: Frame) => Promise<T>,
): Promise<{ value: T; skipped: boolean }> {
  const { browser, agent, rec } = selectedTab(ctx);
  return ctx.broker.exclusive(rec.targetId, async () => {
    const session = await browser.session(rec);
    await frameSessions(rec, session).ensure();
    // The frame tree is needed first only for a frame of the agent's choosing; in the top
    // document (the main frame's id is the target's) it goes out with the page call, and only
    // the refs wait for it.
    const tree = session.send("Page.getFrameTree").then((r) => r.frameTree.frame);
    tree.catch(() => undefined);
    const selected = agent.frames.get(rec.targetId);
    const root =
      selected === undefined
        ? { session, frameId: rec.targetId, offset: { x: 0, y: 0 } }
        : await tree.then((main) => rootForFrame(rec, session, main.id, main.loaderId, selected));
    let index: Promise<Map<string, number>> | undefined;
    const frameIndex = () =>
      (index ??= listFrames(rec, session).then((frames) => new Map(frames.map((f, i) => [f.id, i]))));
    const refs = () =>
      tree.then((main) => {
        const obs = agent.observations.get(rec.targetId);
        return obs && obs.generation === browser.generation && obs.mainLoaderId === main.loaderId
          ? obs.refs
          : undefined;
      });
    const walk: Walk = { ctx, rec, left: MAX_FRAMES, skipped: false, frameIndex, refs };
    const value = await fn(walk, { session: root.session, frameId: root.frameId, offset: root.offset, depth: 0 });
    // A frame tree that failed fails the command, as when it was asked first.
    await tree;
    return { value, skipped: walk.skipped };
  });
}

async function run<F extends "read" | "search" | "find">(
  walk: Walk,
  frame: Frame,
  fn: F,
  input: PageArg<F>,
): Promise<PageResult<F>> {
  const timeoutMs = Math.max(1, walk.ctx.deadline - Date.now());
  const value = await callFn(frame, fn, input, {}, { timeoutMs });
  if (value === null || typeof value !== "object")
    throw new BpError("internal_error", "The page script returned nothing.");
  return value;
}

/** The document behind a placeholder, through the iframe element the script left on its window. */
async function childFrame(walk: Walk, parent: Frame, ph: FramePlaceholder): Promise<Frame | undefined> {
  if (parent.depth >= MAX_FRAME_DEPTH || walk.left <= 0) {
    walk.skipped = true;
    return undefined;
  }
  walk.left--;
  const child = await childWorld(
    walk.rec.frames,
    parent,
    { fn: "frameElement", arg: ph.slot, release: true },
    ph,
    true,
  );
  return child && { ...child, depth: parent.depth + 1 };
}

/**
 * A `Descend` for the merges: runs `inFrame` in the placeholder's frame. A frame that fails
 * (detached meanwhile, out of time) is left out and the result marked truncated.
 */
function descender<T extends object>(
  walk: Walk,
  parent: Frame,
  inFrame: (frame: Frame, limit: number, ph: FramePlaceholder) => Promise<T | InspectError>,
): Descend<T> {
  return async (ph, limit) => {
    try {
      const frame = await childFrame(walk, parent, ph);
      const r = frame && (await inFrame(frame, limit, ph));
      return r && !("error" in r) ? r : undefined;
    } catch {
      walk.skipped = true;
      return undefined;
    }
  };
}

async function readIn(
  walk: Walk,
  frame: Frame,
  input: { limit: number; selector?: string; whole?: boolean },
): Promise<ReadResult | InspectError> {
  const r = await run(walk, frame, "read", input);
  if ("error" in r) return r;
  return mergeRead(
    r,
    input.limit,
    descender(walk, frame, (f, limit) => readIn(walk, f, { limit, whole: true })),
  );
}

interface SearchInput {
  query: string;
  limit: number;
  caseSensitive: boolean;
  wholeWord: boolean;
  selector?: string;
}

async function searchIn(walk: Walk, frame: Frame, input: SearchInput): Promise<SearchResult | InspectError> {
  const r = await run(walk, frame, "search", { ...input });
  if ("error" in r) return r;
  const vp = (walk.viewport ??= r.viewport);
  for (const m of r.matches) {
    m.x += Math.round(frame.offset.x);
    m.y += Math.round(frame.offset.y);
    // A frame judges "in view" against its own viewport; the agent sees the root frame's.
    if (frame.depth > 0 && m.visible) m.visible = m.x < vp.w && m.y < vp.h && m.x + m.width > 0 && m.y + m.height > 0;
  }
  await placeMatches(walk, frame, r.matches);
  return mergeSearch(
    r,
    input.limit,
    descender(walk, frame, (f, limit, ph) => {
      // Inside the selector's scope the whole frame is searched; outside it, the scope may lie within.
      const { selector, ...rest } = input;
      return searchIn(walk, f, { ...rest, limit, ...(selector && !ph.scoped ? { selector } : {}) });
    }),
  );
}

interface FindInput {
  selector: string;
  limit: number;
  attributes: string[];
  shadow: boolean;
}

async function findIn(walk: Walk, frame: Frame, input: FindInput): Promise<FindResult | InspectError> {
  const r = await run(walk, frame, "find", { ...input });
  if ("error" in r) return r;
  // `find` answers a locate result only when asked for one (mode "locate").
  if (!("elements" in r)) throw new BpError("internal_error", "The page's find answered without elements.");
  for (const e of r.elements) {
    e.x += Math.round(frame.offset.x);
    e.y += Math.round(frame.offset.y);
  }
  await placeMatches(walk, frame, r.elements);
  return mergeFind(
    r,
    input.limit,
    descender(walk, frame, (f, limit) => findIn(walk, f, { ...input, limit })),
  );
}

/**
 * Says where each match is: `f`, the number 'bp frame' lists for the frame it is in (none in
 * the walked root), and `r`, the ref of the control it is when this agent's snapshot of the
 * current document listed that ref (folded ones included), or `container`, the ref of the
 * listed control it is inside.
 */
async function placeMatches(
  walk: Walk,
  frame: Frame,
  items: { place?: MatchPlace; f?: string; r?: number; container?: number }[],
): Promise<void> {
  const hosts = new Map<number, string | undefined>();
  const refs = items.some((m) => m.place?.ref !== undefined) ? await walk.refs() : undefined;
  for (const m of items) {
    const place = m.place;
    delete m.place;
    // An ancestor's ref is named as the container's, never as the match's own.
    if (place?.ref !== undefined && refs?.get(place.ref)?.frameId === frame.frameId) {
      if (place.container) m.container = place.ref;
      else m.r = place.ref;
    }
    let frameId: string | undefined = frame.depth > 0 ? frame.frameId : undefined;
    if (place?.host !== undefined) {
      if (!hosts.has(place.host)) hosts.set(place.host, await hostFrameId(frame, place.host));
      frameId = hosts.get(place.host) ?? frameId;
    }
    if (frameId === undefined) continue;
    const n = (await walk.frameIndex().catch(() => new Map<string, number>())).get(frameId);
    if (n !== undefined) m.f = String(n);
  }
}

async function hostFrameId(frame: Frame, slot: number): Promise<string | undefined> {
  const objectId = await pageObject(frame.session, frame.frameId, "hostElement", slot).catch(() => undefined);
  if (!objectId) return undefined;
  const { node } = await frame.session.send("DOM.describeNode", { objectId }).catch(() => ({ node: undefined }));
  void frame.session.send("Runtime.releaseObject", { objectId }).catch(() => undefined);
  return node?.frameId;
}

/** Turns a page-side selector problem into invalid_argument (field "selector"). */
function check<T extends object>(value: T | InspectError, selector: string): T {
  if (!("error" in value)) return value;
  const shown = selector.length > 200 ? `${cutString(selector, 200)}…` : selector;
  if (value.error === "invalid_selector") {
    throw new BpError("invalid_argument", `Invalid CSS selector: ${shown}`, {
      hint: "Check the selector syntax.",
      context: { field: "selector", selector: shown },
    });
  }
  throw new BpError("invalid_argument", `Selector "${shown}" did not match.`, {
    hint: `Selector "${shown}" did not match.`,
    context: { field: "selector", selector: shown },
  });
}

const readHandler = defineHandler(commands.read)({
  async run(ctx, args) {
    const selector = args.selector;
    const limit = clampInt(args.limit, 3000, 100_000);
    const { value, skipped } = await inTab(ctx, (walk, root) =>
      readIn(walk, root, { limit, ...(selector ? { selector } : {}) }),
    );
    const r = check(value, selector ?? "");
    r.truncated ||= skipped;
    // Lean: no tab id (the agent selected it); the full length and the flag only when the text was cut.
    const out: ReplyOf<typeof commands.read.result> = {
      title: boundTitle(r.title),
      url: boundUrl(r.url),
      text: r.text,
    };
    if (r.truncated) {
      out.length = r.length;
      out.truncated = true;
      out.hint = `Showing ${r.text.length} of ${r.length} characters; raise --limit (max 100000) or pass a selector.`;
    }
    return out;
  },
});

const searchHandler = defineHandler(commands.search)({
  async run(ctx, args) {
    const query = args.query;
    const selector = args.selector;
    const input = {
      query: cutString(query, 500),
      limit: clampInt(args.limit, 20, 200),
      caseSensitive: args["case-sensitive"],
      wholeWord: args["whole-word"],
      ...(selector ? { selector } : {}),
    };
    if (!input.query.trim()) throw new BpError("invalid_argument", "Query is empty.", { context: { field: "query" } });
    const { value, skipped } = await inTab(ctx, (walk, root) => searchIn(walk, root, input));
    const r = check(
      "error" in value || value.scoped ? value : { error: "no_match", message: "Selector did not match." },
      selector ?? "",
    );
    r.truncated ||= skipped;
    // Lean (src/broker/inspect/lean.ts): no tab id (the agent selected it); the count and the flag only when the list was cut.
    const out: ReplyOf<typeof commands.search.result> = {
      title: boundTitle(r.title),
      url: boundUrl(r.url),
      matches: r.matches.map((m) => leanMatch(m, query)),
      ...(r.truncated ? { totalMatches: r.totalMatches, truncated: true as const } : {}),
    };
    return out;
  },
});

const findHandler = defineHandler(commands.find)({
  async run(ctx, args) {
    const selector = args.selector;
    const attributes = splitAttributes(args.attributes ?? FIND_DEFAULT_ATTRIBUTES).slice(0, 20);
    const input = { selector, limit: clampInt(args.limit, 20, 200), attributes, shadow: args.shadow !== false };
    const { value, skipped } = await inTab(ctx, (walk, root) => findIn(walk, root, input));
    const r = check(value, selector);
    r.truncated ||= skipped;
    // Lean (src/broker/inspect/lean.ts): no tab id; the count and the flag only when the list was cut.
    const out: ReplyOf<typeof commands.find.result> = {
      elements: r.elements.map(leanElement),
      ...(r.truncated ? { total: r.total, truncated: true as const } : {}),
    };
    return out;
  },
});

const locateHandler = defineHandler(commands.locate)({
  async run(ctx, args) {
    const selector = args.selector;
    const { value } = await inTab(ctx, async (walk, root) => ({
      r: await run(walk, root, "find", { selector, mode: "locate" }),
      offset: root.offset,
    }));
    const r = check(value.r, selector);
    if ("elements" in r) throw new BpError("internal_error", "The page's locate answered a find result.");
    const ox = Math.round(value.offset.x);
    const oy = Math.round(value.offset.y);
    const out: ReplyOf<typeof commands.locate.result> = {
      x: r.x + ox,
      y: r.y + oy,
      top: r.top + oy,
      left: r.left + ox,
      width: r.width,
      height: r.height,
    };
    return out;
  },
});

export const INSPECT_HANDLERS: Handler[] = [readHandler, searchHandler, findHandler, locateHandler];
