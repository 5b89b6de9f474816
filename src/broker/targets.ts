import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../cdp/session.ts";
import type { FrameSessions } from "./frames.ts";
import { localFileRefusal } from "./local-files.ts";

export type TabOrigin = "managed" | "managed_popup" | "user_tab";

export interface PendingDialog {
  id: string;
  type: string;
  message: string;
  defaultPrompt: string;
  url: string;
  openedAt: string;
}

export interface TargetRecord {
  targetId: string;
  url: string;
  title: string;
  type: string;
  openerId?: string;
  browserContextId?: string;
  origin: TabOrigin;
  /** Client key that created the tab (managed) or whose tab opened it (managed_popup). */
  creator?: string;
  /** Client key that controls the tab now; at most one. */
  controller?: string;
  /** Browser Pilot's own short-lived page (profile identification): never listed or handed out. */
  internal?: boolean;
  /** A blank tab the launched browser started with, handed to the first `open --new`. */
  pooled?: boolean;
  session?: Promise<CdpSession>;
  /** The JavaScript dialog blocking this tab, until someone answers it. */
  dialog?: PendingDialog;
  /** A new document the main frame is waiting for: Chrome holds every page call until it commits or stops. */
  navigating?: { url: string; at: number };
  /** Some CDP client has a session on it (the browser's own flag: ours count too). */
  attached?: boolean;
  /** Out-of-process frame sessions, started on first observation. */
  frames?: FrameSessions;
  /** The main document's HTTP auth failure since the last check, for the command that navigated. */
  authFailure?: { url: string; realm: string };
}

export const EXCLUDED_SCHEMES = [
  "devtools:",
  "chrome:",
  "chrome-untrusted:",
  "chrome-extension:",
  "chrome-search:",
  "edge:",
  "brave:",
  "vivaldi:",
  "opera:",
  "view-source:",
];

/** Browser-internal pages, extension targets and local files out of reach are never offered to agents. */
export function isEligible(info: Pick<Protocol.Target.TargetInfo, "type" | "url">): boolean {
  if (info.type !== "page") return false;
  if (info.url === "" || info.url.startsWith("about:")) return true;
  if (localFileRefusal(info.url) !== undefined) return false;
  let scheme: string;
  try {
    scheme = new URL(info.url).protocol;
  } catch {
    return false;
  }
  return !EXCLUDED_SCHEMES.includes(scheme);
}

/**
 * The live target table for one connection generation, fed by Target.* discovery events.
 * Origin is decided once, when the target first appears: what we created is managed, a
 * popup of ours is managed_popup, everything else belongs to the person.
 */
export class TargetTable {
  readonly byId = new Map<string, TargetRecord>();
  private readonly expectedManaged = new Map<string, string>();
  private readonly expectedInternal = new Set<string>();

  /** Our own short-lived page: managed by nobody, listed to nobody. Before or after its created event. */
  markInternal(targetId: string): void {
    this.expectedInternal.add(targetId);
    const rec = this.byId.get(targetId);
    if (rec) rec.internal = true;
  }

  /** Called with the id Target.createTarget returned, before or after the created event. */
  markManaged(targetId: string, creator: string, pooled = false): TargetRecord | undefined {
    this.expectedManaged.set(targetId, creator);
    const rec = this.byId.get(targetId);
    if (rec) {
      rec.origin = "managed";
      rec.creator = creator;
      rec.pooled = pooled;
    }
    return rec;
  }

  upsert(info: Protocol.Target.TargetInfo): TargetRecord | undefined {
    let rec = this.byId.get(info.targetId);
    if (!rec) {
      if (!isEligible(info) && info.type !== "page") return undefined;
      rec = { targetId: info.targetId, url: info.url, title: info.title, type: info.type, origin: "user_tab" };
      if (info.openerId !== undefined) rec.openerId = info.openerId;
      if (info.browserContextId !== undefined) rec.browserContextId = info.browserContextId;
      if (this.expectedInternal.has(info.targetId)) rec.internal = true;
      const creator = this.expectedManaged.get(info.targetId);
      const opener = info.openerId ? this.byId.get(info.openerId) : undefined;
      if (creator !== undefined) {
        rec.origin = "managed";
        rec.creator = creator;
      } else if (opener && opener.origin !== "user_tab" && opener.creator !== undefined) {
        // A popup is ours only through a complete owned opener chain.
        rec.origin = "managed_popup";
        rec.creator = opener.creator;
        if (opener.controller === opener.creator) rec.controller = opener.creator;
      }
      this.byId.set(info.targetId, rec);
    }
    rec.url = info.url;
    rec.title = info.title;
    rec.type = info.type;
    rec.attached = info.attached;
    return rec;
  }

  remove(targetId: string): TargetRecord | undefined {
    const rec = this.byId.get(targetId);
    this.byId.delete(targetId);
    this.expectedManaged.delete(targetId);
    this.expectedInternal.delete(targetId);
    return rec;
  }

  eligible(): TargetRecord[] {
    return [...this.byId.values()].filter((t) => isEligible(t));
  }
}
