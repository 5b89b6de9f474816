/**
 * Deterministic archives: entries sorted by path, one fixed mtime, uid/gid 0 and no user
 * names, so the same inputs give the same bytes on every machine with the same Bun (whose
 * bundled zlib does the compression). Small on purpose: ustar + gzip, and zip (deflate) for
 * Windows, which is all a release needs.
 */
import { deflateRawSync, gzipSync } from "node:zlib";

export interface Entry {
  /** Forward slashes, no leading slash; directories end without a slash. */
  path: string;
  kind: "file" | "dir" | "symlink";
  /** Permission bits, e.g. 0o755. */
  mode: number;
  data?: Uint8Array;
  /** Symlink target (relative). */
  target?: string;
}

const enc = new TextEncoder();

function sorted(entries: readonly Entry[]): Entry[] {
  for (const e of entries) {
    if (e.path.startsWith("/") || e.path.split("/").includes("..") || e.path.endsWith("/"))
      throw new Error(`unsafe archive path '${e.path}'`);
  }
  return [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function octal(value: number, width: number): string {
  // width includes the terminating NUL
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

function put(block: Uint8Array, offset: number, width: number, text: string): void {
  const bytes = enc.encode(text);
  if (bytes.length > width) throw new Error(`tar field too long: '${text}'`);
  block.set(bytes, offset);
}

/** Splits a path into ustar's prefix (155) and name (100) fields. */
function splitName(path: string): [string, string] {
  if (enc.encode(path).length <= 100) return ["", path];
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (enc.encode(prefix).length <= 155 && enc.encode(name).length <= 100) return [prefix, name];
  }
  throw new Error(`path too long for ustar: '${path}'`);
}

function tarHeader(e: Entry, mtime: number): Uint8Array {
  const h = new Uint8Array(512);
  const name = e.kind === "dir" ? `${e.path}/` : e.path;
  const [prefix, short] = splitName(name);
  put(h, 0, 100, short);
  put(h, 100, 8, octal(e.mode & 0o7777, 8));
  put(h, 108, 8, octal(0, 8));
  put(h, 116, 8, octal(0, 8));
  put(h, 124, 12, octal(e.kind === "file" ? (e.data?.length ?? 0) : 0, 12));
  put(h, 136, 12, octal(mtime, 12));
  put(h, 148, 8, "        ");
  put(h, 156, 1, e.kind === "file" ? "0" : e.kind === "dir" ? "5" : "2");
  if (e.kind === "symlink") put(h, 157, 100, e.target ?? "");
  put(h, 257, 6, "ustar\0");
  put(h, 263, 2, "00");
  put(h, 329, 8, octal(0, 8));
  put(h, 337, 8, octal(0, 8));
  put(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  put(h, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return h;
}

export function tar(entries: readonly Entry[], mtime: number): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of sorted(entries)) {
    parts.push(tarHeader(e, mtime));
    if (e.kind === "file" && e.data && e.data.length > 0) {
      parts.push(e.data);
      const pad = (512 - (e.data.length % 512)) % 512;
      if (pad > 0) parts.push(new Uint8Array(pad));
    }
  }
  parts.push(new Uint8Array(1024));
  return concat(parts);
}

/** gzip with no name and mtime 0 in its header: only the content decides the bytes. */
export function tarGz(entries: readonly Entry[], mtime: number): Uint8Array {
  const out = new Uint8Array(gzipSync(tar(entries, mtime), { level: 9 }));
  // zlib writes the build host's OS code (Unix 3, macOS 19, Windows 10): fix it to Unix.
  out[9] = 3;
  return out;
}

/** MS-DOS date and time (UTC, 2-second resolution, not before 1980). */
function dosDateTime(epochSeconds: number): { date: number; time: number } {
  const d = new Date(Math.max(epochSeconds, 315532800) * 1000);
  return {
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
  };
}

export function zip(entries: readonly Entry[], mtime: number): Uint8Array {
  const { date, time } = dosDateTime(mtime);
  const locals: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  const list = sorted(entries);
  for (const e of list) {
    if (e.kind === "symlink") throw new Error(`zip archives carry no symlinks ('${e.path}')`);
    const name = enc.encode(e.kind === "dir" ? `${e.path}/` : e.path);
    const raw = e.kind === "file" ? (e.data ?? new Uint8Array()) : new Uint8Array();
    const method = raw.length > 0 ? 8 : 0;
    const body = method === 8 ? new Uint8Array(deflateRawSync(raw, { level: 9 })) : raw;
    const crc = Bun.hash.crc32(raw) >>> 0;
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, 0x0800, true); // names are UTF-8
    local.setUint16(8, method, true);
    local.setUint16(10, time, true);
    local.setUint16(12, date, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, body.length, true);
    local.setUint32(22, raw.length, true);
    local.setUint16(26, name.length, true);
    local.setUint16(28, 0, true);
    locals.push(new Uint8Array(local.buffer), name, body);
    const c = new DataView(new ArrayBuffer(46));
    c.setUint32(0, 0x02014b50, true);
    c.setUint16(4, (3 << 8) | 20, true); // made by Unix, so the mode bits below mean something
    c.setUint16(6, 20, true);
    c.setUint16(8, 0x0800, true);
    c.setUint16(10, method, true);
    c.setUint16(12, time, true);
    c.setUint16(14, date, true);
    c.setUint32(16, crc, true);
    c.setUint32(20, body.length, true);
    c.setUint32(24, raw.length, true);
    c.setUint16(28, name.length, true);
    const unixMode = (e.kind === "dir" ? 0o040000 : 0o100000) | (e.mode & 0o7777);
    c.setUint32(38, ((unixMode << 16) | (e.kind === "dir" ? 0x10 : 0)) >>> 0, true);
    c.setUint32(42, offset, true);
    central.push(new Uint8Array(c.buffer), name);
    offset += 30 + name.length + body.length;
  }
  const centralBytes = concat(central);
  if (offset > 0xffffffff || list.length > 0xffff) throw new Error("zip too large for a non-zip64 archive");
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, list.length, true);
  end.setUint16(10, list.length, true);
  end.setUint32(12, centralBytes.length, true);
  end.setUint32(16, offset, true);
  return concat([...locals, centralBytes, new Uint8Array(end.buffer)]);
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Reads a ustar/GNU tar (for the npm runtime packages): regular files only, by path. */
export function untar(data: Uint8Array): Map<string, { mode: number; data: Uint8Array }> {
  const dec = new TextDecoder();
  const field = (h: Uint8Array, at: number, len: number) => dec.decode(h.subarray(at, at + len)).replace(/\0.*$/s, "");
  const out = new Map<string, { mode: number; data: Uint8Array }>();
  let at = 0;
  let longName: string | undefined;
  while (at + 512 <= data.length) {
    const h = data.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const size = Number.parseInt(field(h, 124, 12).trim() || "0", 8);
    const type = field(h, 156, 1);
    const prefix = field(h, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
    const body = data.subarray(at + 512, at + 512 + size);
    longName = undefined;
    if (type === "L") longName = dec.decode(body).replace(/\0.*$/s, "");
    else if (type === "0" || type === "")
      out.set(name, { mode: Number.parseInt(field(h, 100, 8).trim() || "0", 8), data: body });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}
