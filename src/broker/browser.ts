import type { Protocol } from "devtools-protocol";
import { CdpConnection } from "../cdp/connection.ts";
import { outsideCallScope } from "../cdp/scope.ts";
import { attachToTarget, type CdpSession } from "../cdp/session.ts";
import type { PageFn } from "../page/runtime.ts";
import { BpError } from "../shared/errors.ts";
import { JanitorClient } from "./janitor-client.ts";
import { onlyOursMoves } from "./pointer-at.ts";
import { createPageInProfile } from "./profiles/create.ts";
import { ProfileRegistry } from "./profiles/registry.ts";
import { TargetTable, type TargetRecord } from "./targets.ts";
import { callPage, installOnNewDocuments } from "./world.ts";

/** Dialog ids are numbered per agent (d1, d2, …) so no agent can count another's dialogs. */
const dialogCounts = new Map<string, number>();

function dialogId(controller: string | undefined): string {
  if (controller === undefined) return `d${100_000_000 + Math.floor(Math.random() * 900_000_000)}`;
  const n = ((dialogCounts.get(controller) ?? 0) % 999_999_999) + 1;
  dialogCounts.delete(controller);
  dialogCounts.set(controller, n);
  // Bounded: the least recently numbered agents are forgotten first.
  if (dialogCounts.size > 1000) dialogCounts.delete(dialogCounts.keys().next().value ?? "");
  return `d${n}`;
}

export interface BrowserInfo {
  id: string;
  product: string;
  version?: string;
  source: "discovered" | "launched" | "remote";
  /** Remote endpoints only: sent on the WebSocket handshake, held in memory, never printed. */
  headers?: Record<string, string>;
  endpoint: string;
  /** Remote endpoints only: the handshake limit (a queued service answers once its browser runs). */
  connectTimeoutMs?: number;
  launchedPid?: number;
  executable?: string;
  profile?: string;
  /** The browser's user-data directory when it is on this machine ('profiles --identify' reads its Local State). */
  userDataRoot?: string;
  headless?: boolean;
}

/** One connected browser for one generation: its janitor, the CDP connection, and the live target table. */
export class BrowserConnection {
  readonly targets = new TargetTable();
  /** Live profile contexts of this generation; their ids die with it. */
  readonly profiles = new ProfileRegistry(this.targets);
  onClosed: ((reason: string) => void) | undefined;
  /** Runs once per tab session before any command uses it (network journal, rules, downloads). */
  onSession: ((rec: TargetRecord, session: CdpSession) => Promise<void>) | undefined;
  closed = false;
  private readonly closing = new Set<string>();
  /** Pages this connection has a session on: the rest of the attached ones are another client's. */
  private readonly attachedHere = new Set<string>();

  private constructor(
    readonly info: BrowserInfo,
    readonly generation: number,
    readonly janitor: JanitorClient,
    readonly cdp: CdpConnection,
  ) {}

  /** `withinMs` bounds the whole opening (handshake and first calls), for a connection made only to clean up. */
  static async open(info: BrowserInfo, generation: number, withinMs?: number): Promise<BrowserConnection> {
    const until = withinMs === undefined ? undefined : Date.now() + withinMs;
    const left = () => (until === undefined ? {} : { timeoutMs: Math.max(1, until - Date.now()) });
    const handshake = info.connectTimeoutMs ?? 8000;
    const janitor = await JanitorClient.connect(info.endpoint, {
      handshakeTimeoutMs: Math.min(handshake, withinMs ?? handshake),
      launched: info.source === "launched",
      ...(info.source === "remote" ? { remote: true } : {}),
      ...(info.headers ? { headers: info.headers } : {}),
    });
    const cdp = new CdpConnection(janitor, { defaultTimeoutMs: 30_000 });
    const conn = new BrowserConnection(info, generation, janitor, cdp);
    cdp.onClose((reason) => conn.markClosed(reason));
    cdp.on("Target.targetCreated", ({ targetInfo }) => conn.targets.upsert(targetInfo));
    cdp.on("Target.targetInfoChanged", ({ targetInfo }) => conn.noteTargetInfo(targetInfo));
    cdp.on("Target.targetDestroyed", ({ targetId }) => {
      conn.closing.delete(targetId);
      conn.targets.remove(targetId);
    });
    cdp.on("Target.attachedToTarget", ({ targetInfo }) => {
      if (targetInfo.type === "page") conn.attachedHere.add(targetInfo.targetId);
    });
    cdp.on("Target.detachedFromTarget", ({ targetId }) => {
      if (targetId) conn.attachedHere.delete(targetId);
      const rec = targetId ? conn.targets.byId.get(targetId) : undefined;
      if (rec) delete rec.session;
    });
    try {
      const version = await cdp.send("Browser.getVersion", undefined, left());
      info.version = version.product;
      await cdp.send("Target.setDiscoverTargets", { discover: true }, left());
      const { targetInfos } = await cdp.send("Target.getTargets", undefined, left());
      for (const t of targetInfos) conn.targets.upsert(t);
    } catch (err) {
      janitor.close();
      throw err;
    }
    return conn;
  }

  /**
   * On a shared remote browser, a person's-looking tab that another CDP client has a session on
   * (another bp install, a script) is that client's: taking it would type into its work.
   */
  attachedElsewhere(rec: TargetRecord): boolean {
    return (
      this.info.source === "remote" &&
      rec.origin === "user_tab" &&
      rec.attached === true &&
      !this.attachedHere.has(rec.targetId)
    );
  }

  /** A target's info as the browser reports it now (an event or a fresh listing). */
  private noteTargetInfo(info: Protocol.Target.TargetInfo): TargetRecord | undefined {
    // A tab we closed stays listed until destroyed; taking it back would show it again as a user tab.
    if (this.closing.has(info.targetId)) return undefined;
    const rec = this.targets.upsert(info);
    // The launched browser's first blank tab is ours only until the person navigates it.
    if (rec?.pooled && rec.url !== "about:blank" && rec.url !== "") {
      rec.pooled = false;
      rec.origin = "user_tab";
      delete rec.creator;
      this.janitor.forget(rec.targetId);
    }
    return rec;
  }

  /** Brings targets' url and title up to date: janitor events may lag, so listings that must be right ask. */
  async refreshTargets(): Promise<void> {
    const { targetInfos } = await this.cdp.send("Target.getTargets");
    for (const t of targetInfos) this.noteTargetInfo(t);
  }

  private markClosed(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.onClosed?.(reason);
  }

  session(rec: TargetRecord): Promise<CdpSession> {
    if (!rec.session) {
      // Shared by every later command, so no one command's deadline or cancellation may cut it short.
      const attach = outsideCallScope(() => attachToTarget(this.cdp, rec.targetId)).then(async (s) => {
        // Dialogs are never answered for the agent: they stay pending until 'bp dialog'.
        s.on("Page.javascriptDialogOpening", (p) => {
          rec.dialog = {
            id: dialogId(rec.controller),
            type: p.type,
            message: p.message,
            defaultPrompt: p.defaultPrompt ?? "",
            url: p.url,
            openedAt: new Date().toISOString(),
          };
        });
        s.on("Page.javascriptDialogClosed", () => {
          delete rec.dialog;
        });
        s.on("Page.frameStartedNavigating", (p) => {
          if (
            p.frameId === rec.targetId &&
            p.navigationType !== "sameDocument" &&
            p.navigationType !== "historySameDocument"
          )
            rec.navigating = { url: p.url, at: Date.now() };
        });
        s.on("Page.frameNavigated", ({ frame }) => {
          if (frame.parentId === undefined) delete rec.navigating;
        });
        s.on("Page.frameStoppedLoading", ({ frameId }) => {
          if (frameId === rec.targetId) delete rec.navigating;
        });
        // No window means no real mouse: only in our own tabs of a headless browser we launched.
        onlyOursMoves(
          s,
          () => this.info.source === "launched" && this.info.headless === true && rec.origin !== "user_tab",
        );
        // Focus emulation keeps a background page rendering and un-throttled without taking the person's focus.
        await outsideCallScope(() =>
          Promise.all([
            s.send("Page.enable"),
            s.send("Page.setLifecycleEventsEnabled", { enabled: true }),
            s.send("Emulation.setFocusEmulationEnabled", { enabled: true }),
            installOnNewDocuments(s, rec.origin !== "user_tab"),
          ]),
        );
        await outsideCallScope(async () => this.onSession?.(rec, s));
        return s;
      });
      attach.catch(() => {
        if (rec.session === attach) delete rec.session;
      });
      rec.session = attach;
    }
    return rec.session;
  }

  /**
   * Creates a managed tab in its own background window (a background tab renders no frames), without stealing focus.
   */
  async createManagedTab(creator: string, contextId?: string): Promise<TargetRecord> {
    const inContext = (t: TargetRecord) => contextId === undefined || t.browserContextId === contextId;
    let pooled = [...this.targets.byId.values()].find(
      (t) => t.pooled && t.controller === undefined && (t.url === "about:blank" || t.url === "") && inContext(t),
    );
    if (pooled) {
      // The person may have started using it a moment ago: ask the browser, not our events.
      const { targetInfo } = await this.cdp
        .send("Target.getTargetInfo", { targetId: pooled.targetId })
        .catch(() => ({ targetInfo: undefined }));
      if (!targetInfo || this.noteTargetInfo(targetInfo)?.pooled !== true) pooled = undefined;
    }
    if (pooled) {
      pooled.pooled = false;
      pooled.creator = creator;
      return pooled;
    }
    // The janitor owns it as soon as the id is known: from then on a broker crash closes it.
    const { targetId } = await createPageInProfile(this, { contextId, creator, own: (id) => this.janitor.own(id) });
    const rec = this.targets.markManaged(targetId, creator) ?? (await this.waitForTarget(targetId));
    if (contextId !== undefined && rec.browserContextId !== contextId) {
      await this.closeTarget(rec).catch(() => undefined);
      throw new BpError("profile_context_unavailable", "The new tab opened in another profile; it was closed.", {
        retryable: true,
      });
    }
    rec.origin = "managed";
    rec.creator = creator;
    return rec;
  }

  /** Runs page code in our isolated world of a tab's main frame with a user gesture (window.open needs one). */
  async runInPage(rec: TargetRecord, fn: PageFn, arg: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const session = await this.session(rec);
    const { frameTree } = await session.send("Page.getFrameTree", undefined, { timeoutMs });
    return (await callPage(session, frameTree.frame.id, [{ fn, arg }], { timeoutMs, userGesture: true })).results[0];
  }

  /** Adopts the launched browser's first blank tab so a cold start needs no extra window. */
  adoptInitialTabs(): void {
    for (const t of this.targets.eligible()) {
      if (t.origin === "user_tab" && (t.url === "about:blank" || t.url === "")) {
        this.janitor.own(t.targetId);
        this.targets.markManaged(t.targetId, "", true);
      }
    }
  }

  private async waitForTarget(targetId: string): Promise<TargetRecord> {
    const { targetInfo } = await this.cdp.send("Target.getTargetInfo", { targetId });
    const rec = this.targets.upsert(targetInfo as Protocol.Target.TargetInfo);
    if (!rec) throw new BpError("internal_error", "Created tab is not a page.");
    return rec;
  }

  async closeTarget(rec: TargetRecord): Promise<void> {
    this.closing.add(rec.targetId);
    try {
      await this.cdp.send("Target.closeTarget", { targetId: rec.targetId });
    } catch (err) {
      this.closing.delete(rec.targetId);
      throw err;
    }
    this.targets.remove(rec.targetId);
    // The janitor owns it until the browser reports it destroyed: a closing page stays listed while unload runs.
  }

  async shutdown(closeBrowser: boolean): Promise<void> {
    this.closed = true;
    await this.janitor.shutdown(closeBrowser);
  }
}
