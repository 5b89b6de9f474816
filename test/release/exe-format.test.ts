/**
 * The header reader the release uses to check every cross-built executable. The real check of
 * Mach-O and PE output runs in `npm run release` (it needs the other platforms' Bun runtimes,
 * ~200 MB from the registry); here the host's own executable is real and the others are the
 * smallest headers that carry the fields read.
 */
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readExeFormat } from "../../build/exe-format.ts";
import { BP } from "../support/bp.ts";

test("the host's bp is read as what it is", () => {
  const f = readExeFormat(new Uint8Array(readFileSync(BP)));
  expect(f.arch).toBe(process.arch === "x64" ? "x64" : "arm64");
  expect(f.format).toBe(process.platform === "darwin" ? "Mach-O" : process.platform === "win32" ? "PE" : "ELF");
});

/** A Mach-O header whose code directory hashes its first 1024 bytes in one page. */
function macho(cpu: number, signed: "adhoc" | "identity" | "none", opts: { codeLimit?: number } = {}): Uint8Array {
  const buf = new Uint8Array(2048);
  const v = new DataView(buf.buffer);
  v.setUint32(0, 0xfeedfacf, true);
  v.setUint32(4, cpu, true);
  v.setUint32(16, signed === "none" ? 0 : 1, true);
  if (signed !== "none") {
    v.setUint32(32, 0x1d, true); // LC_CODE_SIGNATURE
    v.setUint32(36, 16, true);
    v.setUint32(40, 1024, true); // the signature starts where the code ends
    v.setUint32(1024, 0xfade0cc0, false); // embedded signature super blob
    v.setUint32(1032, 1, false);
    v.setUint32(1036, 0, false); // slot type: code directory
    v.setUint32(1040, 64, false); // at super blob + 64
    const cd = 1088;
    v.setUint32(cd, 0xfade0c02, false);
    v.setUint32(cd + 12, signed === "adhoc" ? 0x2 : 0, false);
    v.setUint32(cd + 16, 96, false); // hash offset
    v.setUint32(cd + 28, 1, false); // one code slot
    v.setUint32(cd + 32, opts.codeLimit ?? 1024, false);
    v.setUint8(cd + 36, 32);
    v.setUint8(cd + 37, 2); // sha256
    v.setUint8(cd + 39, 12); // 4096-byte pages
    buf.set(createHash("sha256").update(buf.subarray(0, 1024)).digest(), cd + 96);
  }
  return buf;
}

test("Mach-O: architecture, and a signature kind only when its page hashes match the file", () => {
  expect(readExeFormat(macho(0x0100000c, "adhoc"))).toEqual({ format: "Mach-O", arch: "arm64", signature: "adhoc" });
  expect(readExeFormat(macho(0x01000007, "none"))).toEqual({ format: "Mach-O", arch: "x64", signature: "none" });
  expect(readExeFormat(macho(0x01000007, "identity")).signature).toBe("signed");
  const changed = macho(0x0100000c, "adhoc");
  changed[600] = 1; // code modified after signing: the page hash no longer matches
  expect(readExeFormat(changed).signature).toBe("invalid");
  // Code past the signed range (what Bun leaves on darwin-x64): the runtime's stale signature.
  expect(readExeFormat(macho(0x01000007, "identity", { codeLimit: 512 })).signature).toBe("invalid");
});

test("PE and ELF machines; anything else is refused", () => {
  const pe = new Uint8Array(512);
  const v = new DataView(pe.buffer);
  pe.set([0x4d, 0x5a]);
  v.setUint32(0x3c, 0x80, true);
  v.setUint32(0x80, 0x00004550, true);
  v.setUint16(0x84, 0x8664, true);
  expect(readExeFormat(pe)).toEqual({ format: "PE", arch: "x64", signature: "none" });
  const elf = new Uint8Array(64);
  elf.set([0x7f, 0x45, 0x4c, 0x46]);
  new DataView(elf.buffer).setUint16(18, 183, true);
  expect(readExeFormat(elf).arch).toBe("arm64");
  expect(() => readExeFormat(new Uint8Array(128))).toThrow("not an ELF, Mach-O or PE executable");
});
