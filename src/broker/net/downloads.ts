/**
 * Downloads, owned by the agent whose controlled tab started them and copied into the private
 * store when complete. A launched browser saves into bp's private directory (nothing lands in
 * ~/Downloads); a person's browser keeps its own folder and its file is copied, never moved.
 * A GUID claimed twice fails closed.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { CdpSession } from "../../cdp/session.ts";
import { ensurePrivateDir } from "../../shared/private-fs.ts";
import type { BrowserConnection } from "../browser.ts";
import { PageSession } from "../page-session.ts";
import { storeFor } from "../store/index.ts";
import type { TargetRecord } from "../targets.ts";
import { recordBlock } from "../policy/blocks.ts";
import { downloadLimit } from "../policy/current.ts";
import { redactUrl } from "./redact.ts";
import { connNet } from "./conn.ts";
import { addDownload, type AgentNet, type DownloadRecord, type NetHost } from "./state.ts";
import { type Captured, captureOf, claimCapture, drop } from "./remote-downloads.ts";
import { cutString } from "../../shared/page-strings.ts";
import { displayEndpoint } from "../../shared/secrets.ts";

const MIME: Record<string, string> = {
  csv: "text/csv",
  txt: "text/plain",
  json: "application/json",
  pdf: "application/pdf",
  zip: "application/zip",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  html: "text/html",
  xml: "application/xml",
  gz: "application/gzip",
  tar: "application/x-tar",
  bin: "application/octet-stream",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

export function mimeFor(name: string): string {
  const ext = name.toLowerCase().split(".").pop() ?? "";
  return MIME[ext] ?? "application/octet-stream";
}

/** A file name safe to show and to use as a default export name: no directories, no control characters. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  const clean = cutString(
    base
      .replace(/[\u0000-\u001f\u007f]/g, "")
      .replace(/^\.+/, "")
      .trim(),
    200,
  );
  return clean === "" ? "download" : clean;
}

/** Wakes waiters (bp wait --download, action settling) when a download of this connection changes. */
export function onDownloadChange(conn: BrowserConnection, fn: () => void): () => void {
  const listeners = connNet(conn)?.downloadListeners;
  if (!listeners) return () => undefined;
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function changed(conn: BrowserConnection): void {
  for (const fn of [...(connNet(conn)?.downloadListeners ?? [])]) fn();
}

function behaviorFor(
  conn: BrowserConnection,
  host: NetHost,
): { behavior: "default" | "allowAndName"; downloadPath?: string } {
  const n = connNet(conn);
  if (conn.info.source !== "launched" || !n) return { behavior: "default" };
  let dir = n.privateDir;
  if (!dir) {
    dir = join(host.home, "downloading");
    try {
      ensurePrivateDir(dir);
    } catch {
      return { behavior: "default" };
    }
    n.privateDir = dir;
  }
  return { behavior: "allowAndName", downloadPath: dir };
}

export function installDownloads(conn: BrowserConnection, host: NetHost): void {
  const byGuid = host.downloadGuids;
  // A person's browser: events only, behavior "default" leaves its download decisions and folder alone.
  void conn.cdp
    .send("Browser.setDownloadBehavior", { ...behaviorFor(conn, host), eventsEnabled: true })
    .catch(() => undefined);
  conn.cdp.on("Browser.downloadProgress", (p) => {
    const owned = byGuid.get(p.guid);
    if (owned === undefined || owned === "conflict") return;
    const d = host.peekNet(owned.owner)?.downloads.find((x) => x.id === owned.id);
    if (!d || d.state !== "in_progress") return;
    // A captured download's bytes are the ones bp read; the browser saved an empty body.
    const cap = captureOf(d);
    if (!cap) {
      d.receivedBytes = p.receivedBytes;
      d.totalBytes = p.totalBytes;
    }
    if (p.state === "inProgress" && stopByPolicy(conn, byGuid, d)) {
      drop(cap);
      changed(conn);
      return;
    }
    // A remote browser's path names a file on the service's machine: reading that path here
    // would copy whatever file of ours has the same name (a hostile endpoint could pick it).
    const remote = conn.info.source === "remote";
    if (p.state === "completed" && cap) completeCaptured(host, d, cap);
    else if (p.state === "completed")
      complete(host, d, remote ? undefined : p.filePath, connNet(conn)?.privateDir, remote);
    else if (p.state === "canceled") {
      drop(cap);
      d.state = d.receivedBytes < d.totalBytes || d.totalBytes === 0 ? "failed" : "canceled";
      d.completedAt = Date.now();
      byGuid.delete(d.guid);
    }
    changed(conn);
  });
}

function complete(
  host: NetHost,
  d: DownloadRecord,
  filePath: string | undefined,
  privateDir: string | undefined,
  remote: boolean,
): void {
  try {
    copyToStore(host, d, filePath, remote);
  } finally {
    // Our own directory's file: copied into the store (or refused by it), then gone.
    if (filePath && privateDir && dirname(filePath) === privateDir) rmSync(filePath, { force: true });
  }
}

/** A remote download bp read through CDP (remote-downloads.ts): its file, or why there is none. */
function completeCaptured(host: NetHost, d: DownloadRecord, cap: Captured): void {
  if (cap.error === undefined) {
    complete(host, d, cap.path, cap.dir, false);
    return;
  }
  d.completedAt = Date.now();
  d.state = cap.error === "failed" ? "failed" : "completed";
  if (cap.error !== "failed") d.error = cap.error;
  host.downloadGuids.delete(d.guid);
}

function copyToStore(host: NetHost, d: DownloadRecord, filePath: string | undefined, remote: boolean): void {
  d.completedAt = Date.now();
  d.state = "completed";
  host.downloadGuids.delete(d.guid);
  if (!filePath) {
    d.error = remote ? "remote_file_system" : "file_unavailable";
    return;
  }
  try {
    const item = storeFor(host.home).putFile(d.owner, "download", filePath, {
      name: d.fileName,
      mimeType: mimeFor(d.fileName),
    });
    d.artifactId = item.id;
    d.sizeBytes = item.sizeBytes;
    d.mimeType = item.mimeType;
  } catch (err) {
    // Only our copy fails; Chrome's file stays where Chrome put it.
    d.error = (err as { code?: string }).code === "quota_exceeded" ? "quota_exceeded" : "copy_failed";
  }
}

/** Ownership: a download begins on this tab's own session while an agent controls the tab. */
export function watchTabDownloads(conn: BrowserConnection, host: NetHost, rec: TargetRecord, main: CdpSession): void {
  const ps = PageSession.of(main);
  if (ps.downloadsWatched) return;
  ps.downloadsWatched = true;
  const ctx = rec.browserContextId;
  const enabled = connNet(conn)?.downloadContexts;
  const byGuid = host.downloadGuids;
  if (ctx && enabled && !enabled.has(ctx)) {
    enabled.add(ctx);
    void conn.cdp
      .send("Browser.setDownloadBehavior", { ...behaviorFor(conn, host), eventsEnabled: true, browserContextId: ctx })
      .catch(() => undefined);
  }
  main.on("Page.downloadWillBegin", (p) => {
    const owner = rec.controller;
    if (owner === undefined) return;
    if (byGuid.has(p.guid)) {
      // Two claims on one download: nobody gets it.
      const prev = byGuid.get(p.guid);
      if (prev && prev !== "conflict") {
        const d = host.peekNet(prev.owner)?.downloads.find((x) => x.id === prev.id);
        if (d) {
          d.state = "failed";
          d.error = "ownership_conflict";
        }
      }
      byGuid.set(p.guid, "conflict");
      return;
    }
    const net = host.net(owner);
    if (!net) return;
    const d = addDownload(net, {
      guid: p.guid,
      owner,
      tab: host.tabId(owner, rec.targetId),
      targetId: rec.targetId,
      url: recordUrl(p.url),
      fileName: safeFileName(p.suggestedFilename),
      state: "in_progress",
      receivedBytes: 0,
      totalBytes: 0,
      startedAt: Date.now(),
    });
    byGuid.set(p.guid, { owner, id: d.id });
    if (conn.info.source === "remote") claimCapture(connNet(conn)?.tabs.get(rec.targetId), p.url, d);
    if (stopByPolicy(conn, byGuid, d)) drop(captureOf(d));
    changed(conn);
  });
}

/** A signed download link's token (token=, sig=, key=…) is a credential too: masked in the record like an endpoint's. */
function recordUrl(url: string): string {
  return /^https?:/i.test(url) ? displayEndpoint(redactUrl(url)) : redactUrl(url);
}

/** The host policy's downloads rule (off, or a cap): the download is cancelled and marked, and the agent's reply says so. */
function stopByPolicy(conn: BrowserConnection, byGuid: Map<string, unknown>, d: DownloadRecord): boolean {
  const limit = downloadLimit(d.owner);
  if (limit === undefined || (limit !== "off" && d.receivedBytes <= limit && d.totalBytes <= limit)) return false;
  d.state = "failed";
  d.error = "policy_denied";
  d.completedAt = Date.now();
  byGuid.delete(d.guid);
  recordBlock(d.owner, { kind: "download", url: d.url, rule: "files.downloads" });
  void conn.cdp.send("Browser.cancelDownload", { guid: d.guid }).catch(() => undefined);
  return true;
}

/** The agent's download for a browser GUID (for action evidence). */
export function downloadByGuid(conn: BrowserConnection, owner: string, guid: string): DownloadRecord | undefined {
  return connNet(conn)
    ?.host.peekNet(owner)
    ?.downloads.find((d) => d.guid === guid);
}

/** Stops tracking an agent's downloads (Chrome's downloads go on). */
export function forgetDownloads(byGuid: Map<string, { owner: string; id: string } | "conflict">, owner: string): void {
  for (const [guid, o] of byGuid) if (o !== "conflict" && o.owner === owner) byGuid.delete(guid);
}

/** The public shape of a download record (the downloads command's item; `bp downloads` adds expiresAt). */
export type PublicDownload = {
  id: string;
  fileName: string;
  state: DownloadRecord["state"];
  url: string;
  tab: string;
  mimeType?: string;
  sizeBytes?: number;
  receivedBytes?: number;
  totalBytes?: number;
  error?: string;
  startedAt: string;
  expiresAt?: string;
};

export function publicDownload(d: DownloadRecord): PublicDownload {
  const progress =
    d.state === "in_progress"
      ? { receivedBytes: d.receivedBytes, ...(d.totalBytes > 0 ? { totalBytes: d.totalBytes } : {}) }
      : {};
  return {
    id: d.id,
    fileName: d.fileName,
    state: d.state,
    url: d.url,
    tab: d.tab,
    ...(d.mimeType ? { mimeType: d.mimeType } : {}),
    ...(d.sizeBytes !== undefined ? { sizeBytes: d.sizeBytes } : progress),
    ...(d.error ? { error: d.error } : {}),
    startedAt: new Date(d.startedAt).toISOString(),
  };
}

/** For 'bp wait --download': the oldest finished download no earlier wait returned (one wait each). */
export function nextFinishedDownload(net: AgentNet | undefined): Record<string, unknown> | undefined {
  const d = net?.downloads.find((x) => x.state !== "in_progress" && !x.waited);
  if (!d) return undefined;
  d.waited = true;
  return { download: publicDownload(d) };
}
