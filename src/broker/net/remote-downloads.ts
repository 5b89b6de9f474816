/**
 * Downloads of a remote browser, captured through CDP: its disk is the service's, so the bytes are read where the
 * browser receives them. A controlled tab's document responses pause at the Response stage; one that is a download
 * (Content-Disposition: attachment, or a type no browser renders) has its body streamed into bp's private directory
 * (Fetch.takeResponseBodyAsStream + IO.read, bounded by the policy's cap and the store's item limit), then goes on
 * with an empty body: the browser still starts its download (guid, suggested name, events, the action's evidence)
 * and saves 0 bytes on the service's disk, and the record takes the captured file (downloads.ts).
 */
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../../cdp/session.ts";
import { ensurePrivateDir } from "../../shared/private-fs.ts";
import { downloadLimit } from "../policy/current.ts";
import { storeFor } from "../store/index.ts";
import type { TabNet } from "./conn.ts";
import type { DownloadRecord, NetHost } from "./state.ts";

/** A download's body as bp received it: a file of ours, or why there is none. */
export interface Captured {
  path?: string;
  dir: string;
  bytes: number;
  /** quota_exceeded (past the store's item limit), failed (the stream broke); a policy cap shows in `bytes`. */
  error?: "quota_exceeded" | "failed";
}

const READ_CHUNK = 1024 * 1024;
/** Captures waiting for their browser download to begin, per tab: a few at most, for a minute at most. */
const PENDING_MAX = 8;
const PENDING_MS = 60_000;
/** Types a browser saves rather than shows, so they are captured without Content-Disposition. */
const DOWNLOAD_TYPES =
  /^application\/(octet-stream|zip|x-zip-compressed|gzip|x-gzip|x-tar|x-7z-compressed|x-rar-compressed|x-msdownload|vnd\.openxmlformats-officedocument\.[\w.-]+|vnd\.ms-excel|msword)\b/i;

const pending = new WeakMap<TabNet, { url: string; cap: Captured }[]>();
const byRecord = new WeakMap<DownloadRecord, Captured>();

/** The Fetch patterns of a session: every request (rules, auth, policy) and/or document responses (capture). */
export function fetchPatterns(requests: boolean, capture: boolean): Protocol.Fetch.RequestPattern[] {
  return [
    ...(requests ? [{ urlPattern: "*", requestStage: "Request" as const }] : []),
    ...(capture ? [{ urlPattern: "*", resourceType: "Document" as const, requestStage: "Response" as const }] : []),
  ];
}

/** Capture runs on a remote browser's tabs while an agent controls them (the download is that agent's). */
export function capturesDownloads(tab: TabNet): boolean {
  return tab.remote === true && tab.rec.controller !== undefined;
}

export function atResponse(p: Protocol.Fetch.RequestPausedEvent): boolean {
  return p.responseStatusCode !== undefined || p.responseErrorReason !== undefined;
}

function header(p: Protocol.Fetch.RequestPausedEvent, name: string): string {
  return p.responseHeaders?.find((h) => h.name.toLowerCase() === name)?.value ?? "";
}

function isDownload(p: Protocol.Fetch.RequestPausedEvent): boolean {
  const status = p.responseStatusCode ?? 0;
  if (status < 200 || status >= 300 || status === 204) return false;
  return /^\s*attachment\b/i.test(header(p, "content-disposition")) || DOWNLOAD_TYPES.test(header(p, "content-type"));
}

/** A paused document response: a download is captured, anything else goes on untouched. */
export async function onResponsePaused(
  host: NetHost,
  tab: TabNet,
  s: CdpSession,
  p: Protocol.Fetch.RequestPausedEvent,
): Promise<void> {
  const owner = tab.rec.controller;
  const limit = owner === undefined ? "off" : downloadLimit(owner);
  // Not ours, or refused by the policy anyway (downloads.ts cancels it and says so).
  if (!tab.remote || owner === undefined || limit === "off" || !isDownload(p)) {
    await s.send("Fetch.continueRequest", { requestId: p.requestId }).catch(() => undefined);
    return;
  }
  const cap = await readBody(host, s, p.requestId, Math.min(limit ?? Infinity, storeFor(host.home).limits.itemBytes));
  // A dropped connection ends the stream early without an error: fewer bytes than promised is a broken download.
  const promised =
    header(p, "content-encoding") === "" ? Number(header(p, "content-length") || Number.NaN) : Number.NaN;
  if (cap.error === undefined && cap.bytes < promised) {
    cap.error = "failed";
    dropFile(cap);
  }
  const list = pending.get(tab) ?? [];
  const entry = { url: withoutFragment(p.request.url), cap };
  list.push(entry);
  for (const old of list.splice(0, Math.max(0, list.length - PENDING_MAX))) drop(old.cap);
  pending.set(tab, list);
  // A download the browser never began (its tab went, downloads denied there): its file does not stay.
  setTimeout(() => {
    const i = list.indexOf(entry);
    if (i >= 0) drop(list.splice(i, 1)[0]?.cap);
  }, PENDING_MS).unref();
  // The browser's own download starts from these headers (its name, its events) and saves nothing of substance.
  const headers = (p.responseHeaders ?? []).filter(
    (h) => !/^(content-length|content-encoding|transfer-encoding)$/i.test(h.name),
  );
  await s
    .send("Fetch.fulfillRequest", {
      requestId: p.requestId,
      responseCode: p.responseStatusCode ?? 200,
      responseHeaders: headers,
      body: "",
    })
    .catch(() => undefined);
}

/** Streams the body into a private file, up to `max` bytes: past it reading stops (bytes = max + 1). */
async function readBody(host: NetHost, s: CdpSession, requestId: string, max: number): Promise<Captured> {
  const dir = join(host.home, "downloading");
  const cap: Captured = { dir, bytes: 0 };
  let fd: number | undefined;
  let stream: string | undefined;
  try {
    ensurePrivateDir(dir);
    const path = join(dir, `remote-${crypto.randomUUID()}`);
    fd = openSync(path, "wx", 0o600);
    cap.path = path;
    stream = (await s.send("Fetch.takeResponseBodyAsStream", { requestId })).stream;
    for (;;) {
      const r = await s.send("IO.read", { handle: stream, size: READ_CHUNK });
      const chunk = Buffer.from(r.data, r.base64Encoded ? "base64" : "utf8");
      if (cap.bytes + chunk.length > max) {
        cap.bytes = max + 1;
        if (max >= storeFor(host.home).limits.itemBytes) cap.error = "quota_exceeded";
        break;
      }
      writeSync(fd, chunk);
      cap.bytes += chunk.length;
      if (r.eof) break;
    }
  } catch {
    cap.error = "failed";
  } finally {
    if (fd !== undefined) closeSync(fd);
    if (stream !== undefined) await s.send("IO.close", { handle: stream }).catch(() => undefined);
  }
  if (cap.error !== undefined || cap.bytes > max) dropFile(cap);
  return cap;
}

/** At the browser's downloadWillBegin: the capture of that URL on that tab, now the record's. */
export function claimCapture(tab: TabNet | undefined, url: string, d: DownloadRecord): void {
  const list = tab ? pending.get(tab) : undefined;
  const i = list?.findIndex((x) => x.url === withoutFragment(url)) ?? -1;
  if (!list || i < 0) return;
  const [hit] = list.splice(i, 1);
  if (!hit) return;
  byRecord.set(d, hit.cap);
  d.receivedBytes = hit.cap.bytes;
  d.totalBytes = hit.cap.bytes;
}

/** The record's capture, if any (a remote download bp read itself). */
export function captureOf(d: DownloadRecord): Captured | undefined {
  return byRecord.get(d);
}

/** A capture no download claimed, or one whose download was refused: its file goes. */
export function drop(cap: Captured | undefined): void {
  if (cap) dropFile(cap);
}

function dropFile(cap: Captured): void {
  if (cap.path) rmSync(cap.path, { force: true });
  delete cap.path;
}

function withoutFragment(url: string): string {
  const i = url.indexOf("#");
  return i < 0 ? url : url.slice(0, i);
}
