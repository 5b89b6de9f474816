/**
 * The private file store: every byte bp keeps for the agent passes through here. Items live in `<home>/store/<random>`
 * (0700 dirs, 0600 files, random names). Each belongs to one client key (another key's id is artifact_not_found).
 * Quotas per item, agent and total; expired ids leave a tombstone (artifact_expired). Emptied at broker start and stop.
 */
import {
  chmodSync,
  closeSync,
  copyFileSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import { ensurePrivateDir } from "../../shared/private-fs.ts";
import { writeOutputFile, type WriteOptions, type WrittenFile } from "../files.ts";

export type ArtifactKind = "screenshot" | "pdf" | "body" | "upload" | "download" | "har" | "trace";

export interface Artifact {
  id: string;
  kind: ArtifactKind;
  owner: string;
  /** Name shown to the agent (a download's file name); never used as a path on disk. */
  name: string;
  mimeType: string;
  sizeBytes: number;
  createdAt: number;
  expiresAt: number;
  path: string;
}

export interface StoreLimits {
  itemBytes: number;
  agentBytes: number;
  totalBytes: number;
  ttlMs: number;
  tombstoneMs: number;
}

const MIB = 1024 * 1024;

function envNumber(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Upstream's limits; the environment can lower them (tests do) or raise them. */
export function defaultLimits(): StoreLimits {
  return {
    itemBytes: envNumber("BROWSER_PILOT_STORE_ITEM_BYTES", 100 * MIB),
    agentBytes: envNumber("BROWSER_PILOT_STORE_AGENT_BYTES", 250 * MIB),
    totalBytes: envNumber("BROWSER_PILOT_STORE_TOTAL_BYTES", 1024 * MIB),
    ttlMs: envNumber("BROWSER_PILOT_STORE_TTL_MS", 15 * 60_000),
    tombstoneMs: 60 * 60_000,
  };
}

function quotaExceeded(which: "item" | "agent" | "total", needed: number, limit: number, used: number): BpError {
  const what =
    which === "item" ? "one stored file" : which === "agent" ? "this agent's stored files" : "all stored files";
  return new BpError(
    "quota_exceeded",
    `Storing ${needed} bytes would exceed the limit for ${what} (${limit} bytes${which === "item" ? "" : `, ${used} in use`}).`,
    {
      retryable: which !== "item",
      context: {
        quota: which,
        limitBytes: limit,
        neededBytes: needed,
        ...(which === "item" ? {} : { usedBytes: used }),
      },
      ...(which === "item"
        ? {}
        : {
            hint: "Export what you need with its command, then let older items expire, or run 'bp disconnect' to free this agent's items.",
          }),
    },
  );
}

export class ArtifactStore {
  readonly root: string;
  private readonly items = new Map<string, Artifact>();
  private readonly tombstones = new Map<string, { owner: string; until: number }>();
  private seq = 0;

  constructor(
    home: string,
    readonly limits: StoreLimits = defaultLimits(),
  ) {
    this.root = join(home, "store");
    wipeStore(home);
    ensurePrivateDir(this.root);
  }

  used(owner?: string): number {
    let n = 0;
    for (const a of this.items.values()) if (owner === undefined || a.owner === owner) n += a.sizeBytes;
    return n;
  }

  /** Throws quota_exceeded when `size` more bytes for `owner` would not fit. */
  reserve(owner: string, size: number): void {
    this.sweep();
    const l = this.limits;
    if (size > l.itemBytes) throw quotaExceeded("item", size, l.itemBytes, 0);
    const mine = this.used(owner);
    if (mine + size > l.agentBytes) throw quotaExceeded("agent", size, l.agentBytes, mine);
    const all = this.used();
    if (all + size > l.totalBytes) throw quotaExceeded("total", size, l.totalBytes, all);
  }

  put(
    owner: string,
    kind: ArtifactKind,
    data: Uint8Array,
    meta: { name: string; mimeType: string; ttlMs?: number },
  ): Artifact {
    this.reserve(owner, data.length);
    const path = this.freshPath();
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      fchmodSync(fd, 0o600);
      let off = 0;
      while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    } catch (err) {
      rmSync(dirname(path), { recursive: true, force: true });
      throw new BpError("internal_error", `Cannot write to private storage: ${(err as Error).message}`);
    } finally {
      closeSync(fd);
    }
    return this.add(owner, kind, path, data.length, meta);
  }

  /** Copies a file into the store, opening the source without following a final symlink. */
  putFile(
    owner: string,
    kind: ArtifactKind,
    source: string,
    meta: { name: string; mimeType: string; ttlMs?: number; keepName?: boolean },
  ): Artifact {
    let size: number;
    try {
      const fd = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const st = fstatSync(fd);
        if (!st.isFile()) throw invalidArgument("file", `${source} is not a regular file.`);
        size = st.size;
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      if (err instanceof BpError) throw err;
      throw new BpError(
        "artifact_not_found",
        `Cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
        { context: { reason: "source_unreadable" } },
      );
    }
    this.reserve(owner, size);
    // An upload keeps its base name: it is the name the page sees.
    const path = this.freshPath(meta.keepName ? basename(source) : undefined);
    try {
      copyFileSync(source, path, constants.COPYFILE_EXCL);
      chmodSync(path, 0o600);
      size = lstatSync(path).size;
    } catch (err) {
      rmSync(dirname(path), { recursive: true, force: true });
      throw new BpError("internal_error", `Cannot copy into private storage: ${(err as Error).message}`);
    }
    if (size > this.limits.itemBytes) {
      rmSync(dirname(path), { recursive: true, force: true });
      throw quotaExceeded("item", size, this.limits.itemBytes, 0);
    }
    return this.add(owner, kind, path, size, meta);
  }

  private add(
    owner: string,
    kind: ArtifactKind,
    path: string,
    sizeBytes: number,
    meta: { name: string; mimeType: string; ttlMs?: number },
  ): Artifact {
    const now = Date.now();
    const id = `a${++this.seq}`;
    const item: Artifact = {
      id,
      kind,
      owner,
      name: meta.name,
      mimeType: meta.mimeType,
      sizeBytes,
      createdAt: now,
      expiresAt: now + (meta.ttlMs ?? this.limits.ttlMs),
      path,
    };
    this.items.set(id, item);
    return item;
  }

  private freshPath(name?: string): string {
    ensurePrivateDir(this.root);
    const dir = join(this.root, crypto.randomUUID());
    mkdirSync(dir, { mode: 0o700 });
    return join(dir, name ?? "data");
  }

  /** The owner's item; artifact_expired for a tombstone, artifact_not_found otherwise. */
  get(owner: string, id: string, field = "id"): Artifact {
    this.sweep();
    const item = this.items.get(id);
    if (item && item.owner === owner) return item;
    const tomb = this.tombstones.get(id);
    if (tomb && tomb.owner === owner) {
      throw new BpError("artifact_expired", `Stored item ${id} expired and was removed.`, { context: { field, id } });
    }
    throw new BpError("artifact_not_found", `No stored item ${id} for this agent.`, { context: { field, id } });
  }

  has(owner: string, id: string): boolean {
    const item = this.items.get(id);
    return item !== undefined && item.owner === owner && item.expiresAt > Date.now();
  }

  /** Writes a copy to `dest` (placed by resolveOutputPath): 0600, atomic, never through a symlink or into the store. */
  exportTo(item: Artifact, dest: string, opts: WriteOptions = {}): WrittenFile {
    this.refuseInside(dest);
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(item.path);
    } catch {
      throw new BpError("artifact_not_found", `Stored item ${item.id} is gone.`, { context: { id: item.id } });
    }
    return writeOutputFile(dest, bytes, item.mimeType, opts);
  }

  /** Export paths inside the store are refused: the agent's copy must outlive the broker. */
  refuseInside(dest: string): void {
    const roots = [this.root];
    try {
      roots.push(realpathSync(this.root));
    } catch {
      // not created yet
    }
    let real = dest;
    try {
      real = join(realpathSync(join(dest, "..")), dest.slice(dest.lastIndexOf(sep) + 1));
    } catch {
      // parent missing: resolveOutputPath already refused it
    }
    for (const r of roots) {
      for (const p of [dest, real]) {
        const rel = relative(r, p);
        if (rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel))) {
          throw invalidArgument("file", "That path is inside Browser Pilot's private storage; export somewhere else.");
        }
      }
    }
  }

  release(id: string): void {
    const item = this.items.get(id);
    if (!item) return;
    this.items.delete(id);
    rmSync(dirname(item.path), { recursive: true, force: true });
  }

  releaseOwner(owner: string): void {
    for (const item of [...this.items.values()]) if (item.owner === owner) this.release(item.id);
    for (const [id, t] of this.tombstones) if (t.owner === owner) this.tombstones.delete(id);
  }

  list(owner: string, kind?: ArtifactKind): Artifact[] {
    this.sweep();
    return [...this.items.values()].filter((a) => a.owner === owner && (kind === undefined || a.kind === kind));
  }

  sweep(now = Date.now()): void {
    for (const item of [...this.items.values()]) {
      if (item.expiresAt > now) continue;
      this.release(item.id);
      this.tombstones.set(item.id, { owner: item.owner, until: now + this.limits.tombstoneMs });
    }
    for (const [id, t] of this.tombstones) if (t.until <= now) this.tombstones.delete(id);
  }

  close(): void {
    this.items.clear();
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Empties what an earlier broker of this home left (killed with -9); only the broker lock's owner may call this. */
export function wipeStore(home: string): void {
  const root = join(home, "store");
  let st;
  try {
    st = lstatSync(root);
  } catch {
    return;
  }
  // A symlink planted in our place is removed, never followed.
  if (st.isSymbolicLink() || !st.isDirectory()) {
    rmSync(root, { force: true });
    return;
  }
  for (const entry of readdirSync(root)) rmSync(join(root, entry), { recursive: true, force: true });
}
