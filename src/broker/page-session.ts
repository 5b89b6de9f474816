import type { CdpSession } from "../cdp/session.ts";

/** What the broker keeps per document of a frame for its listener marks (observe/listeners.ts). */
export interface DocMarks {
  /** The page has marks of this document (it says itself whether they still hold). */
  marked: boolean;
  /** The listened nodes (backend ids, as the browser listed them) the page's marks were made from. */
  nodes?: string;
  /** The page world's document handle, for the listener query. */
  pageDoc?: string;
  /** The page world's scan found framework-clickable elements (React): an action's observation scans again. */
  framework?: boolean;
}

/**
 * Everything the broker keeps about one page session (a tab's, or an out-of-process frame's):
 * it lives and dies with the session, so nothing outlives a closed tab.
 */
export class PageSession {
  /** Our world's execution context per frame (world.ts). */
  readonly contexts = new Map<string, number>();
  /** Navigation events seen per frame (started, committed, detached). */
  readonly navigations = new Map<string, number>();
  /** Per frame, its navigation count at its latest commit since the browser installs the runtime. */
  readonly commits = new Map<string, number>();
  /** World lookups on their way, per frame: a second caller waits for the first. */
  readonly asking = new Map<string, Promise<number>>();
  /** Execution contexts that hold the page runtime already. */
  readonly installed = new Set<number>();
  /** The browser installs the runtime in every new document of this session. */
  autoInstalled = false;
  /** The navigation events are being counted. */
  framesWatched = false;

  /** Where our last pointer event left the mouse (act/pointer.ts). */
  pointer: { x: number; y: number } | undefined;
  pointerWatched = false;
  /** Whether only the broker moves this tab's mouse now. */
  onlyOurs: (() => boolean) | undefined;

  /** Network.enable, sent once and left on. */
  network: Promise<unknown> | undefined;

  /** Listener marks per document ("frame:loader"). */
  readonly marks = new Map<string, DocMarks>();
  /** Page-world document handles asked ahead, per top frame, with the frame's navigation count then. */
  readonly docsAhead = new Map<string, { navs: number; objectId: Promise<string | undefined> }>();

  /** Page.downloadWillBegin is followed on this session. */
  downloadsWatched = false;

  private constructor(readonly session: CdpSession) {}

  private static readonly all = new WeakMap<CdpSession, PageSession>();

  static of(session: CdpSession): PageSession {
    let s = PageSession.all.get(session);
    if (!s) PageSession.all.set(session, (s = new PageSession(session)));
    return s;
  }

  /** The state of a session, only if something was kept for it already. */
  static peek(session: CdpSession): PageSession | undefined {
    return PageSession.all.get(session);
  }
}
