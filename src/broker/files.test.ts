import { afterAll, describe, expect, test } from "bun:test";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BpError } from "../shared/errors.ts";
import { fileTimestamp, resolveOutputPath, siblingPath, writeOutputFile } from "./files.ts";

const root = mkdtempSync(join(tmpdir(), "bp-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function dir(name: string): string {
  const d = join(root, name);
  mkdirSync(d, { recursive: true });
  return d;
}

function refused(fn: () => unknown, field = "file"): BpError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BpError);
    const e = err as BpError;
    expect(e.code).toBe("invalid_argument");
    expect(e.context?.field).toBe(field);
    return e;
  }
  throw new Error("expected a refusal");
}

describe("resolveOutputPath", () => {
  test("without an output dir: explicit absolute, relative to cwd, default name in cwd", () => {
    const cwd = dir("cwd1");
    const other = dir("elsewhere");
    expect(resolveOutputPath(join(other, "a.png"), "d.png", { cwd })).toBe(join(other, "a.png"));
    expect(resolveOutputPath("b.png", "d.png", { cwd })).toBe(join(cwd, "b.png"));
    expect(resolveOutputPath("../elsewhere/c.png", "d.png", { cwd })).toBe(join(other, "c.png"));
    expect(resolveOutputPath(undefined, "d.png", { cwd })).toBe(join(cwd, "d.png"));
  });

  test("default names never overwrite: -2, -3 …", () => {
    const cwd = dir("unique");
    writeFileSync(join(cwd, "shot.png"), "x");
    writeFileSync(join(cwd, "shot-2.png"), "x");
    expect(resolveOutputPath(undefined, "shot.png", { cwd })).toBe(join(cwd, "shot-3.png"));
    // An explicit name is the caller's choice and replaces the file.
    expect(resolveOutputPath("shot.png", "x.png", { cwd })).toBe(join(cwd, "shot.png"));
  });

  test("output dir: default and relative names land inside it, and it is created 0700", () => {
    const out = join(root, "out-new", "nested");
    const cwd = dir("cwd2");
    expect(resolveOutputPath(undefined, "d.png", { cwd, outputDir: out })).toBe(join(out, "d.png"));
    expect(statSync(out).mode & 0o777).toBe(0o700);
    mkdirSync(join(out, "sub"));
    expect(resolveOutputPath("sub/x.png", "d.png", { cwd, outputDir: out })).toBe(join(out, "sub", "x.png"));
    expect(resolveOutputPath("sub/../y.png", "d.png", { cwd, outputDir: out })).toBe(join(out, "y.png"));
    expect(resolveOutputPath(join(out, "abs.png"), "d.png", { cwd, outputDir: out })).toBe(join(out, "abs.png"));
  });

  test("output dir: .. escapes and absolute paths outside are refused", () => {
    const out = dir("jail");
    const cwd = dir("cwd3");
    refused(() => resolveOutputPath("../x.png", "d.png", { cwd, outputDir: out }));
    refused(() => resolveOutputPath("a/../../x.png", "d.png", { cwd, outputDir: out }));
    refused(() => resolveOutputPath(join(cwd, "x.png"), "d.png", { cwd, outputDir: out }));
    refused(() => resolveOutputPath("/etc/passwd", "d.png", { cwd, outputDir: out }));
    refused(() => resolveOutputPath(out, "d.png", { cwd, outputDir: out }));
    refused(() => resolveOutputPath("x.png", "d.png", { cwd, outputDir: "relative/dir" }), "outputDir");
  });

  test("a symlinked parent that leads out of the output dir is refused; one that stays inside is fine", () => {
    const out = dir("jail2");
    const outside = dir("outside2");
    mkdirSync(join(out, "real"));
    symlinkSync(outside, join(out, "escape"));
    symlinkSync(join(out, "real"), join(out, "inner"));
    refused(() => resolveOutputPath("escape/x.png", "d.png", { outputDir: out }));
    expect(resolveOutputPath("inner/x.png", "d.png", { outputDir: out })).toBe(join(out, "inner", "x.png"));
  });

  test("a symlink or a directory at the final path is refused, with or without an output dir", () => {
    const out = dir("jail3");
    const target = join(dir("outside3"), "victim");
    writeFileSync(target, "keep");
    symlinkSync(target, join(out, "link.png"));
    symlinkSync(join(out, "missing"), join(out, "dangling.png"));
    mkdirSync(join(out, "d.png"));
    refused(() => resolveOutputPath("link.png", "x.png", { outputDir: out }));
    refused(() => resolveOutputPath("link.png", "x.png", { cwd: out }));
    refused(() => resolveOutputPath("dangling.png", "x.png", { cwd: out }));
    refused(() => resolveOutputPath("d.png", "x.png", { cwd: out }));
    expect(readFileSync(target, "utf8")).toBe("keep");
  });

  test("missing directories, empty names and a missing cwd are clear errors", () => {
    const cwd = dir("cwd4");
    refused(() => resolveOutputPath("nope/x.png", "d.png", { cwd }));
    refused(() => resolveOutputPath("", "d.png", { cwd }));
    refused(() => resolveOutputPath("dir/", "d.png", { cwd }));
    refused(() => resolveOutputPath("x.png", "d.png", {}));
    // An absolute path needs no cwd.
    expect(resolveOutputPath(join(cwd, "x.png"), "d.png", {})).toBe(join(cwd, "x.png"));
  });
});

describe("writeOutputFile", () => {
  test("writes 0600 atomically; an existing file is refused unless replace (--force); no temp files", () => {
    const d = dir("write");
    const path = join(d, "a.bin");
    writeFileSync(path, "old", { mode: 0o444 });
    refused(() => writeOutputFile(path, new Uint8Array([5]), "application/octet-stream"));
    expect(readFileSync(path, "utf8")).toBe("old");
    expect(readdirSync(d)).toEqual(["a.bin"]);
    const r = writeOutputFile(path, new Uint8Array([1, 2, 3, 4]), "application/octet-stream", { replace: true });
    expect(r).toEqual({ file: path, mimeType: "application/octet-stream", sizeBytes: 4 });
    expect([...readFileSync(path)]).toEqual([1, 2, 3, 4]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(d)).toEqual(["a.bin"]);
    const fresh = writeOutputFile(join(d, "b.bin"), new Uint8Array([6]), "application/octet-stream");
    expect(statSync(fresh.file).nlink).toBe(1);
    expect(readdirSync(d).sort()).toEqual(["a.bin", "b.bin"]);
  });

  test("a file name the file system refuses (too long) is invalid_argument, not internal_error", () => {
    const d = dir("toolong");
    const e = refused(() => writeOutputFile(join(d, `${"x".repeat(300)}.pdf`), new Uint8Array([1]), "application/pdf"));
    expect(e.context?.reason).toBe("ENAMETOOLONG");
    expect(readdirSync(d)).toEqual([]);
  });

  test("noClobber keeps existing files and takes the next free name", () => {
    const d = dir("noclobber");
    const path = join(d, "shot.png");
    writeFileSync(path, "first");
    const r = writeOutputFile(path, new Uint8Array([7]), "image/png", { noClobber: true });
    expect(r.file).toBe(join(d, "shot-2.png"));
    expect(readFileSync(path, "utf8")).toBe("first");
    expect(statSync(r.file).mode & 0o777).toBe(0o600);
    expect(statSync(r.file).nlink).toBe(1);
    expect(readdirSync(d).sort()).toEqual(["shot-2.png", "shot.png"]);
  });

  test("never writes through a symlink planted at the final path", () => {
    const d = dir("write2");
    const victim = join(d, "victim");
    writeFileSync(victim, "keep");
    symlinkSync(victim, join(d, "out.png"));
    refused(() => writeOutputFile(join(d, "out.png"), new Uint8Array([9]), "image/png"));
    expect(readFileSync(victim, "utf8")).toBe("keep");
    expect(lstatSync(join(d, "out.png")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(d, "out.png"))).toBe(victim);
  });
});

describe("names", () => {
  test("timestamps are file-name safe UTC; siblings swap the extension", () => {
    expect(fileTimestamp(new Date("2024-05-01T12:30:05.123Z"))).toBe("2024-05-01T12-30-05");
    expect(siblingPath("/a/b/shot.png", ".preview.jpg")).toBe("/a/b/shot.preview.jpg");
    expect(siblingPath("/a/b/shot", ".preview.jpg")).toBe("/a/b/shot.preview.jpg");
    expect(siblingPath("/a/.hidden", ".preview.jpg")).toBe("/a/.hidden.preview.jpg");
  });
});
