/**
 * Journal entries whose end Chrome reports on another session, or never: a frame's
 * document (it starts in the parent's session), what a frame that went had open, and what
 * the tab's earlier documents left open. An entry left open forever would hold every later
 * `bp wait --network-idle` on the tab.
 */
import type { Protocol } from "devtools-protocol";
import { JOURNAL_MAX_ENTRIES, type Journal, type NetEntry } from "./journal.ts";

/** Bound of each map here: past it the oldest go (they only decide about entries long open). */
const KEEP_MAX = 500;

function bounded<K, V>(m: Map<K, V>, k: K, v: V): void {
  m.delete(k);
  m.set(k, v);
  if (m.size > KEEP_MAX) for (const old of [...m.keys()].slice(0, m.size - KEEP_MAX)) m.delete(old);
}

/** One tab's view of which of its entries may still end, and who ends the others. */
export class TabEnds {
  /** The main frame's document generation: one more for each main-frame navigation. */
  private gen = 0;
  /** Generation a loader (a document of the tab or of one of its frames) was first seen in. */
  private readonly loaders = new Map<string, number>();
  private readonly genOf = new WeakMap<NetEntry, number>();
  /** Frame documents not ended yet, by request id: the frame (its target id when out of process) and the entry's scope. */
  private readonly frameDocs = new Map<string, { frameId: string; scope: string }>();
  /** Documents canceled when their frame's session closed, by request id: the frame may have moved into another process, whose session ends them. */
  private readonly moved = new Map<string, NetEntry>();

  constructor(
    private readonly tabId: string,
    private readonly journal: () => Journal | undefined,
  ) {}

  /**
   * A request began. Its generation comes from its loader, not its time: a keepalive fetch
   * sent in the same turn as a navigation may reach us after the navigation's start, but
   * belongs to the document that is going. Returns the generation when it starts a new main document.
   */
  began(p: Protocol.Network.RequestWillBeSentEvent, mainNav: boolean): number | undefined {
    if (mainNav) {
      this.gen++;
      bounded(this.loaders, p.loaderId, this.gen);
      return this.gen;
    }
    // Empty for a worker's requests: those take the generation they are journalled in.
    if (p.loaderId !== "" && !this.loaders.has(p.loaderId)) bounded(this.loaders, p.loaderId, this.gen);
    return undefined;
  }

  /** The loaders seen on the tab so far (for a wait starting now: theirs are earlier documents'). */
  loadersSeen(): string[] {
    return [...this.loaders.keys()];
  }

  /** The request's journal entry exists (the person's requests have none). */
  journalled(e: NetEntry, p: Protocol.Network.RequestWillBeSentEvent, scope: string): void {
    this.genOf.set(e, this.loaders.get(p.loaderId) ?? this.gen);
    if (p.type === "Document" && p.frameId !== undefined && p.frameId !== this.tabId)
      bounded(this.frameDocs, p.requestId, { frameId: p.frameId, scope });
  }

  /** Chrome reported the request's end (on whichever session). */
  ended(requestId: string): void {
    this.frameDocs.delete(requestId);
  }

  /**
   * A frame's session closed (the frame went, or moved into another process): the
   * requests it started and not ended, and its document (in the parent's scope), end as
   * canceled. A document it started is kept aside in case another session ends it.
   */
  frameClosed(frameId: string, scope: string, running: Iterable<string>): void {
    const journal = this.journal();
    if (!journal) return;
    const cancel = (e: NetEntry | undefined) => {
      if (!e || e.done) return;
      if (e.type === "document" && e.error === undefined) bounded(this.moved, e.requestId, e);
      e.error ??= "canceled";
      e.done = true;
    };
    for (const id of running) cancel(journal.find(scope, id));
    for (const [id, d] of this.frameDocs) {
      if (d.frameId !== frameId) continue;
      this.frameDocs.delete(id);
      cancel(journal.find(d.scope, id));
    }
  }

  /**
   * A document canceled by its frame's session closing, whose end came on another session
   * (a frame that navigated back into its parent's process). `ended`: Chrome reported its
   * end, so the cancel we gave it was wrong (a failure brings its own error).
   */
  movedDoc(requestId: string, ended: boolean): NetEntry | undefined {
    const e = this.moved.get(requestId);
    if (!e) return undefined;
    if (ended) {
      delete e.error;
      this.moved.delete(requestId);
    }
    return e;
  }

  /**
   * The main frame loaded the document of generation `gen`: what the tab's earlier
   * documents (and their frames) still had open is gone with them. Chrome does not always
   * say so (a favicon's fetch cut off by the navigation, a keepalive fetch, end nowhere).
   */
  endStale(gen: number): void {
    const journal = this.journal();
    if (!journal) return;
    const id = this.tabId;
    for (const e of journal.query({ limit: JOURNAL_MAX_ENTRIES }).entries) {
      const g = this.genOf.get(e);
      if (!e.done && g !== undefined && g < gen && (e.targetId === id || e.targetId.startsWith(`${id}>`))) {
        e.error ??= "canceled";
        e.done = true;
      }
    }
  }
}

/**
 * Ids a frame's session started and did not end yet (for its close). Bounded: Chrome never
 * ends some (a polling widget's cut-off fetches), and a long-lived frame must not grow it
 * for its whole life; ids whose entry ended elsewhere or left the journal go first.
 */
export class OpenIds implements Iterable<string> {
  private readonly ids = new Set<string>();

  constructor(
    private readonly isOpen: (id: string) => boolean,
    private readonly max = KEEP_MAX,
  ) {}

  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size <= this.max) return;
    for (const old of this.ids) if (!this.isOpen(old)) this.ids.delete(old);
    for (const old of this.ids) {
      if (this.ids.size <= this.max) break;
      this.ids.delete(old);
    }
  }

  delete(id: string): void {
    this.ids.delete(id);
  }

  clear(): void {
    this.ids.clear();
  }

  get size(): number {
    return this.ids.size;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.ids[Symbol.iterator]();
  }
}
