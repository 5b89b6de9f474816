import type { Protocol } from "devtools-protocol";
import { CdpConnection } from "../cdp/connection.ts";
import { attachToTarget, type CdpSession } from "../cdp/session.ts";
import { BpError } from "../shared/errors.ts";
import { JanitorClient } from "./janitor-client.ts";
import { TargetTable, type TargetRecord } from "./targets.ts";

export interface BrowserInfo {
  id: string;
  product: string;
  version?: string;
  source: "discovered" | "launched";
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
  private pilotWindowTarget: string | undefined;
  private dialogSeq = 0;

  private constructor(
    readonly info: BrowserInfo,
    readonly generation: number,
    readonly janitor: JanitorClient,
    readonly cdp: CdpConnection,
  ) {}

  static async open(info: BrowserInfo, generation: number): Promise<BrowserConnection> {
    const janitor = await JanitorClient.connect(info.endpoint, { handshakeTimeoutMs: 8000, launched: info.source === "launched" });
    const cdp = new CdpConnection(janitor, { defaultTimeoutMs: 30_000 });
    const conn = new BrowserConnection(info, generation, janitor, cdp);
    cdp.onClose((reason) => conn.markClosed(reason));
    cdp.on("Target.targetCreated", ({ targetInfo }) => conn.targets.upsert(targetInfo));
    cdp.on("Target.targetInfoChanged", ({ targetInfo }) => conn.targets.upsert(targetInfo));
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
          rec.dialog = { id: `d${++this.dialogSeq}`, type: p.type, message: p.message, defaultPrompt: p.defaultPrompt ?? "", url: p.url, openedAt: new Date().toISOString() };
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
   * window; later ones reuse a pooled blank tab when the launched browser left one.
   */
  async createManagedTab(creator: string): Promise<TargetRecord> {
    const pooled = [...this.targets.byId.values()].find((t) => t.pooled && t.controller === undefined);
    if (pooled) {
      pooled.pooled = false;
      pooled.creator = creator;
      return pooled;
    }
    const haveWindow = this.pilotWindowTarget !== undefined && this.targets.byId.has(this.pilotWindowTarget);
    const { targetId } = await this.cdp.send("Target.createTarget", { url: "about:blank", newWindow: !haveWindow, background: true });
    // Tell the janitor first: from here on a broker crash must close this tab.
    this.janitor.own(targetId);
    if (!haveWindow) this.pilotWindowTarget = targetId;
    const rec = this.targets.markManaged(targetId, creator) ?? (await this.waitForTarget(targetId));
    rec.origin = "managed";
    rec.creator = creator;
    return rec;
  }

  /** Adopts the launched browser's first blank tab so a cold start needs no extra window. */
  adoptInitialTabs(): void {
    for (const t of this.targets.eligible()) {
      if (t.origin === "user_tab" && (t.url === "about:blank" || t.url === "")) {
        this.janitor.own(t.targetId);
        this.targets.markManaged(t.targetId, "", true);
        this.pilotWindowTarget ??= t.targetId;
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
