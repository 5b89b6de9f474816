import type { Protocol } from "devtools-protocol";
import { CdpConnection } from "../cdp/connection.ts";
import { attachToTarget, type CdpSession } from "../cdp/session.ts";
import { BpError } from "../shared/errors.ts";
import { JanitorClient } from "./janitor-client.ts";
import { runInWorld } from "./world.ts";
import { TargetTable, type TargetRecord } from "./targets.ts";

/** How long opening beside another managed tab may take before a new background window is used. */
const OPEN_BESIDE_MS = 2_000;

/** Runs in our isolated world of a managed page: a tab in the same window, with no opener link. */
const OPEN_BESIDE = `function (win, arg) { win.open(arg.url, "_blank", "noopener"); return true; }`;

/** Random, so one agent cannot count the dialogs other agents' tabs opened. */
function dialogId(): string {
  return `d${100_000_000 + Math.floor(Math.random() * 900_000_000)}`;
}

export interface BrowserInfo {
  id: string;
  product: string;
  version?: string;
  source: "discovered" | "launched" | "remote";
  /** Remote endpoints only: sent on the WebSocket handshake, held in memory, never printed. */
  headers?: Record<string, string>;
  endpoint: string;
  /** For launched browsers: the process we started and its profile. */
  launchedPid?: number;
  profile?: string;
  headless?: boolean;
}

/**
 * One connected browser for one connection generation: the janitor that holds its socket,
 * the CDP connection over it, and the live target table.
 */
export class BrowserConnection {
  readonly targets = new TargetTable();
  onClosed: ((reason: string) => void) | undefined;
  closed = false;

  private constructor(
    readonly info: BrowserInfo,
    readonly generation: number,
    readonly janitor: JanitorClient,
    readonly cdp: CdpConnection,
  ) {}

  static async open(info: BrowserInfo, generation: number): Promise<BrowserConnection> {
    const janitor = await JanitorClient.connect(info.endpoint, { handshakeTimeoutMs: 8000, launched: info.source === "launched", ...(info.headers ? { headers: info.headers } : {}) });
    const cdp = new CdpConnection(janitor, { defaultTimeoutMs: 30_000 });
    const conn = new BrowserConnection(info, generation, janitor, cdp);
    cdp.onClose((reason) => conn.markClosed(reason));
    cdp.on("Target.targetCreated", ({ targetInfo }) => conn.targets.upsert(targetInfo));
    cdp.on("Target.targetInfoChanged", ({ targetInfo }) => {
      const rec = conn.targets.upsert(targetInfo);
      // The launched browser's first blank tab is ours only while nobody uses it: once the
      // person navigates it, it is theirs, and never handed to an agent or closed by us.
      if (rec?.pooled && rec.url !== "about:blank" && rec.url !== "") {
        rec.pooled = false;
        rec.origin = "user_tab";
        delete rec.creator;
        delete rec.inPilotWindow;
        janitor.forget(rec.targetId);
      }
    });
    cdp.on("Target.targetDestroyed", ({ targetId }) => conn.targets.remove(targetId));
    cdp.on("Target.detachedFromTarget", ({ targetId }) => {
      const rec = targetId ? conn.targets.byId.get(targetId) : undefined;
      if (rec) delete rec.session;
    });
    try {
      const version = await cdp.send("Browser.getVersion");
      info.version = version.product;
      await cdp.send("Target.setDiscoverTargets", { discover: true });
      const { targetInfos } = await cdp.send("Target.getTargets");
      for (const t of targetInfos) conn.targets.upsert(t);
    } catch (err) {
      janitor.close();
      throw err;
    }
    return conn;
  }

  private markClosed(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.onClosed?.(reason);
  }

  /** Flat session to a target, attached once and shared by later commands. */
  session(rec: TargetRecord): Promise<CdpSession> {
    if (!rec.session) {
      const attach = attachToTarget(this.cdp, rec.targetId).then(async (s) => {
        // Dialogs are never answered for the agent: they stay pending until 'bp dialog'.
        s.on("Page.javascriptDialogOpening", (p) => {
          rec.dialog = { id: dialogId(), type: p.type, message: p.message, defaultPrompt: p.defaultPrompt ?? "", url: p.url, openedAt: new Date().toISOString() };
        });
        s.on("Page.javascriptDialogClosed", () => {
          delete rec.dialog;
        });
        await Promise.all([s.send("Page.enable"), s.send("Page.setLifecycleEventsEnabled", { enabled: true })]);
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
   * Creates a managed tab without stealing focus. The first opens the background Pilot
   * window; later ones open beside an existing managed tab in that window (CDP cannot create
   * a tab in a given window, so a managed page opens it), falling back to a new background
   * window. A pooled blank tab of a launched browser is handed out first.
   */
  async createManagedTab(creator: string): Promise<TargetRecord> {
    const pooled = [...this.targets.byId.values()].find((t) => t.pooled && t.controller === undefined && (t.url === "about:blank" || t.url === ""));
    if (pooled) {
      pooled.pooled = false;
      pooled.creator = creator;
      return pooled;
    }
    let targetId = await this.openBesidePilotTab(creator);
    if (targetId === undefined) ({ targetId } = await this.cdp.send("Target.createTarget", { url: "about:blank", newWindow: true, background: true }));
    // Tell the janitor first: from here on a broker crash must close this tab.
    this.janitor.own(targetId);
    const rec = this.targets.markManaged(targetId, creator) ?? (await this.waitForTarget(targetId));
    rec.origin = "managed";
    rec.creator = creator;
    rec.inPilotWindow = true;
    return rec;
  }

  private async openBesidePilotTab(creator: string): Promise<string | undefined> {
    // Prefer a tab of the same agent, then an idle one, then any: the page never sees it (our
    // isolated world), and a busy page only costs the bounded wait below before the fallback.
    // One window keeps the person's screen tidy, and hidden tabs cost less to render.
    const candidates = [...this.targets.byId.values()].filter((t) => t.inPilotWindow && t.origin === "managed" && !t.dialog && !t.pooled);
    const anchor = candidates.find((t) => t.creator === creator) ?? candidates.find((t) => t.controller === undefined) ?? candidates[0];
    if (!anchor) return undefined;
    const marker = `bp-${crypto.randomUUID()}`;
    const offs: (() => void)[] = [];
    const found = new Promise<string>((resolve) => {
      const check = (info: Protocol.Target.TargetInfo) => {
        if (info.type === "page" && info.url.includes(marker)) resolve(info.targetId);
      };
      offs.push(this.cdp.on("Target.targetCreated", ({ targetInfo }) => check(targetInfo)));
      offs.push(this.cdp.on("Target.targetInfoChanged", ({ targetInfo }) => check(targetInfo)));
    });
    const attempt = (async () => {
      const session = await this.session(anchor);
      const { frameTree } = await session.send("Page.getFrameTree", undefined, { timeoutMs: OPEN_BESIDE_MS });
      await runInWorld(session, frameTree.frame.id, OPEN_BESIDE, { url: `about:blank#${marker}` }, OPEN_BESIDE_MS, { userGesture: true });
      return found;
    })();
    attempt.catch(() => undefined);
    const targetId = await Promise.race([attempt, Bun.sleep(OPEN_BESIDE_MS).then(() => undefined)]).catch(() => undefined);
    for (const off of offs) off();
    if (targetId === undefined) this.closeLateArrival(marker);
    return targetId;
  }

  /** A tab our timed-out window.open still creates later is ours: close it when it shows up. */
  private closeLateArrival(marker: string): void {
    const close = (info: Protocol.Target.TargetInfo) => {
      if (info.type === "page" && info.url.includes(marker)) void this.cdp.send("Target.closeTarget", { targetId: info.targetId }).catch(() => undefined);
    };
    const offs = [this.cdp.on("Target.targetCreated", ({ targetInfo }) => close(targetInfo)), this.cdp.on("Target.targetInfoChanged", ({ targetInfo }) => close(targetInfo))];
    setTimeout(() => offs.forEach((off) => off()), 30_000).unref();
  }

  /** Adopts the launched browser's first blank tab so a cold start needs no extra window. */
  adoptInitialTabs(): void {
    for (const t of this.targets.eligible()) {
      if (t.origin === "user_tab" && (t.url === "about:blank" || t.url === "")) {
        this.janitor.own(t.targetId);
        const rec = this.targets.markManaged(t.targetId, "", true);
        if (rec) rec.inPilotWindow = true;
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
    await this.cdp.send("Target.closeTarget", { targetId: rec.targetId });
    this.targets.remove(rec.targetId);
    this.janitor.forget(rec.targetId);
  }

  async shutdown(closeBrowser: boolean): Promise<void> {
    this.closed = true;
    await this.janitor.shutdown(closeBrowser);
  }
}
