import { afterEach, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BpError } from "../../shared/errors.ts";
import { resolveOutputPath } from "../files.ts";
import { storeAndExport } from "./export.ts";
import { ArtifactStore, wipeStore, type StoreLimits } from "./store.ts";

const dirs: string[] = [];
function home(): string {
  const d = mkdtempSync(join(tmpdir(), "bp-store-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const limits = (over: Partial<StoreLimits> = {}): StoreLimits => ({
  itemBytes: 100,
  agentBytes: 250,
  totalBytes: 400,
  ttlMs: 60_000,
  tombstoneMs: 60_000,
  ...over,
});
const bytes = (n: number) => new Uint8Array(n).fill(1);

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof BpError ? `${err.code}${err.context?.quota ? `:${String(err.context.quota)}` : ""}` : "other";
  }
  return undefined;
}

describe("ArtifactStore", () => {
  test("items are 0600 files in 0700 directories with random names, and only the owner sees them", () => {
    const s = new ArtifactStore(home(), limits());
    const a = s.put("k1", "screenshot", bytes(10), { name: "../../evil.png", mimeType: "image/png" });
    expect(statSync(s.root).mode & 0o777).toBe(0o700);
    expect(statSync(join(a.path, "..")).mode & 0o777).toBe(0o700);
    expect(statSync(a.path).mode & 0o777).toBe(0o600);
    expect(a.path.startsWith(`${s.root}/`)).toBe(true);
    expect(a.path).not.toContain("evil");
    expect(s.get("k1", a.id)).toBe(a);
    // Another key cannot tell the item exists.
    expect(code(() => s.get("k2", a.id))).toBe("artifact_not_found");
    expect(code(() => s.get("k1", "a999"))).toBe("artifact_not_found");
  });

  test("per-item, per-agent and total quotas refuse with quota_exceeded and leave nothing behind", () => {
    const s = new ArtifactStore(home(), limits());
    expect(code(() => s.put("k1", "pdf", bytes(101), { name: "x", mimeType: "application/pdf" }))).toBe(
      "quota_exceeded:item",
    );
    s.put("k1", "pdf", bytes(100), { name: "x", mimeType: "application/pdf" });
    s.put("k1", "pdf", bytes(100), { name: "x", mimeType: "application/pdf" });
    expect(code(() => s.put("k1", "pdf", bytes(60), { name: "x", mimeType: "application/pdf" }))).toBe(
      "quota_exceeded:agent",
    );
    s.put("k2", "pdf", bytes(100), { name: "x", mimeType: "application/pdf" });
    s.put("k3", "pdf", bytes(90), { name: "x", mimeType: "application/pdf" });
    expect(code(() => s.put("k4", "pdf", bytes(20), { name: "x", mimeType: "application/pdf" }))).toBe(
      "quota_exceeded:total",
    );
    expect(readdirSync(s.root).length).toBe(4);
    expect(s.used()).toBe(390);
  });

  test("an expired item leaves a tombstone: artifact_expired, then artifact_not_found after it", () => {
    const s = new ArtifactStore(home(), limits({ ttlMs: 1000, tombstoneMs: 1000 }));
    const a = s.put("k1", "body", bytes(5), { name: "b", mimeType: "text/plain" });
    s.sweep(a.createdAt + 1001);
    expect(existsSync(a.path)).toBe(false);
    expect(code(() => s.get("k1", a.id))).toBe("artifact_expired");
    expect(code(() => s.get("k2", a.id))).toBe("artifact_not_found");
    s.sweep(a.createdAt + 5000);
    expect(code(() => s.get("k1", a.id))).toBe("artifact_not_found");
  });

  test("putFile copies and never touches the source; uploads keep their base name", () => {
    const h = home();
    const s = new ArtifactStore(h, limits({ itemBytes: 1000 }));
    const src = join(h, "resume.txt");
    writeFileSync(src, "hello");
    const a = s.putFile("k1", "upload", src, { name: "resume.txt", mimeType: "text/plain", keepName: true });
    expect(a.path.endsWith("/resume.txt")).toBe(true);
    expect(readFileSync(a.path, "utf8")).toBe("hello");
    s.release(a.id);
    expect(readFileSync(src, "utf8")).toBe("hello");
    const link = join(h, "link.txt");
    symlinkSync(src, link);
    expect(code(() => s.putFile("k1", "upload", link, { name: "l", mimeType: "text/plain" }))).toBe(
      "artifact_not_found",
    );
  });

  test("exports are 0600, refuse symlinks and paths inside the store", () => {
    const h = home();
    const out = join(h, "out");
    mkdirSync(out);
    const s = new ArtifactStore(h, limits());
    const written = storeAndExport(
      s,
      "k1",
      "screenshot",
      bytes(7),
      "image/png",
      resolveOutputPath("shot.png", "x.png", { cwd: out }),
    );
    expect(written).toMatchObject({ file: join(out, "shot.png"), sizeBytes: 7, mimeType: "image/png" });
    expect(statSync(written.file).mode & 0o777).toBe(0o600);
    // The stored copy of a one-shot export is gone again.
    expect(s.used("k1")).toBe(0);
    const a = s.put("k1", "download", bytes(3), { name: "d.bin", mimeType: "application/octet-stream" });
    const target = join(h, "elsewhere");
    writeFileSync(target, "keep");
    symlinkSync(target, join(out, "link.bin"));
    expect(code(() => s.exportTo(a, join(out, "link.bin")))).toBe("invalid_argument");
    expect(readFileSync(target, "utf8")).toBe("keep");
    expect(code(() => s.exportTo(a, join(s.root, "copy.bin")))).toBe("invalid_argument");
    expect(code(() => s.exportTo(a, join(a.path, "..", "copy.bin")))).toBe("invalid_argument");
    // Through a symlinked directory that leads into the store.
    symlinkSync(s.root, join(out, "sneaky"));
    expect(code(() => s.exportTo(a, join(out, "sneaky", "copy.bin")))).toBe("invalid_argument");
  });

  test("nothing survives: a new store empties what an earlier broker left, close removes everything", () => {
    const h = home();
    const s1 = new ArtifactStore(h, limits());
    const a = s1.put("k1", "pdf", bytes(5), { name: "x", mimeType: "application/pdf" });
    const s2 = new ArtifactStore(h, limits());
    expect(existsSync(a.path)).toBe(false);
    expect(readdirSync(s2.root)).toEqual([]);
    s2.put("k1", "pdf", bytes(5), { name: "x", mimeType: "application/pdf" });
    s2.close();
    expect(existsSync(s2.root)).toBe(false);
    // A symlink planted where the store goes is removed, never followed.
    const victim = join(h, "victim");
    mkdirSync(victim);
    writeFileSync(join(victim, "keep"), "1");
    symlinkSync(victim, join(h, "store"));
    wipeStore(h);
    expect(readFileSync(join(victim, "keep"), "utf8")).toBe("1");
    expect(existsSync(join(h, "store"))).toBe(false);
  });

  test("releaseOwner frees one key's items only", () => {
    const s = new ArtifactStore(home(), limits());
    const a = s.put("k1", "pdf", bytes(5), { name: "x", mimeType: "application/pdf" });
    const b = s.put("k2", "pdf", bytes(5), { name: "x", mimeType: "application/pdf" });
    s.releaseOwner("k1");
    expect(existsSync(a.path)).toBe(false);
    expect(s.get("k2", b.id)).toBe(b);
  });
});
