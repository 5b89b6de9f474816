import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../cdp/session.ts";
import type { DelegationScan } from "../page/snapshot/listener-mark.ts";

/** Listener marks of one document (observe/listeners.ts). */
export interface DocMarks {
  marked: boolean;
  /** The listened nodes the page's marks were made from. */
  nodes?: string;
  /** The page world's document handle, for the listener query. */
  pageDoc?: string;
  /** Framework-clickable elements (React) were found: an action's observation scans again. */
  framework?: boolean;
}

/** A top document's listener list and the page world's delegation, asked at its load, with its navigation count then. */
export interface ListenersAhead {
  frameId: string;
  navs: number;
  at: number;
  listeners: Promise<Protocol.DOMDebugger.EventListener[]>;
  scan: Promise<DelegationScan | undefined>;
}

/** What the broker keeps about one page session (a tab's or an out-of-process frame's); it dies with the session. */
export class PageSession {
  /** Our world's execution context per frame (world.ts). */
  readonly contexts = new Map<string, number>();
  readonly navigations = new Map<string, number>();
  /** Per frame, its navigation count at its latest commit since the browser installs the runtime. */
  readonly commits = new Map<string, number>();
  readonly asking = new Map<string, Promise<number>>();
  readonly installed = new Set<number>();
  autoInstalled = false;
  framesWatched = false;

  /** Where our last pointer event left the mouse (act/pointer.ts). */
  pointer: { x: number; y: number } | undefined;
  pointerWatched = false;
  onlyOurs: (() => boolean) | undefined;

  network: Promise<unknown> | undefined;

  /** Listener marks by "frame:loader". */
  readonly marks = new Map<string, DocMarks>();
  /** Page-world document handles asked ahead, per top frame, with the frame's navigation count then. */
  readonly docsAhead = new Map<string, { navs: number; objectId: Promise<string | undefined> }>();
  /** The frame tree asked ahead of an observation (a navigation's look), with the top frame's navigation count then. */
  treeAhead: { navs: number; at: number; tree: Promise<Protocol.Page.FrameTree | undefined> } | undefined;
  /** The top frame's navigation count when its document became interactive during a navigation that will look. */
  interactiveAt: number | undefined;
  /** The top document's listener list and delegation scan asked at its load (observe/listeners.ts listenersAhead). */
  listenersAhead: ListenersAhead | undefined;

  downloadsWatched = false;

  private constructor(readonly session: CdpSession) {}

  private static readonly all = new WeakMap<CdpSession, PageSession>();

  static of(session: CdpSession): PageSession {
    let s = PageSession.all.get(session);
    if (!s) PageSession.all.set(session, (s = new PageSession(session)));
    return s;
  }

  static peek(session: CdpSession): PageSession | undefined {
    return PageSession.all.get(session);
  }
}
