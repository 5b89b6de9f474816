import { outsideCallScope } from "../cdp/scope.ts";
import { CdpSession } from "../cdp/session.ts";

/**
 * Out-of-process iframes (cross-origin) live in their own renderer and need their own CDP
 * session. Auto-attach hands us one per such frame; the frame id equals its target id.
 */
export class FrameSessions {
  private readonly byFrame = new Map<string, CdpSession>();
  private ready: Promise<void> | undefined;

  constructor(private readonly root: CdpSession) {}

  /** Starts auto-attach once per tab session (and in every child, for nested frames). */
  ensure(): Promise<void> {
    // Shared by every later command: no one command's deadline may cut it short.
    this.ready ??= outsideCallScope(() => this.enable(this.root));
    return this.ready;
  }

  private async enable(session: CdpSession): Promise<void> {
    session.on("Target.attachedToTarget", (p) => {
      if (p.targetInfo.type !== "iframe") return;
      const child = new CdpSession(session.connection, p.sessionId, p.targetInfo.targetId);
      this.byFrame.set(p.targetInfo.targetId, child);
      child.onClose(() => {
        if (this.byFrame.get(p.targetInfo.targetId) === child) this.byFrame.delete(p.targetInfo.targetId);
      });
      void this.enable(child).catch(() => undefined);
    });
    // Frames only: workers attached here would keep a session each for their whole life.
    await session.send("Target.setAutoAttach", {
      autoAttach: true,
      waitForDebuggerOnStart: false,
      flatten: true,
      filter: [{ type: "iframe" }],
    });
  }

  children(): { frameId: string; session: CdpSession }[] {
    return [...this.byFrame.entries()].map(([frameId, session]) => ({ frameId, session }));
  }

  /** The session that owns an out-of-process frame, if that frame is out of process. */
  sessionFor(frameId: string): CdpSession | undefined {
    return this.byFrame.get(frameId);
  }
}
