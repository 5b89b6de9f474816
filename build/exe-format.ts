/**
 * Reads an executable's header: container format, CPU architecture and, for Mach-O, what
 * code signature it carries and whether that signature matches the file. The release checks
 * every cross-built executable with it and writes what it found into the manifest, so the
 * signature kind is evidence, not a label.
 */
import { createHash } from "node:crypto";

export interface ExeFormat {
  format: "ELF" | "Mach-O" | "PE";
  arch: "x64" | "arm64" | "other";
  /**
   * Mach-O only (ELF and PE: "none"): "adhoc" or "signed" when every page hash of its code
   * directory matches ("signed": some identity, not verified here), "invalid" when the
   * signature does not match the file (macOS may refuse to run it), "none" without one.
   */
  signature: "none" | "adhoc" | "signed" | "invalid";
}

export function readExeFormat(data: Uint8Array): ExeFormat {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length < 64) throw new Error("too short for an executable");
  // ELF: e_machine at 18 (little-endian on the targets we build).
  if (data[0] === 0x7f && data[1] === 0x45 && data[2] === 0x4c && data[3] === 0x46) {
    const machine = view.getUint16(18, true);
    return { format: "ELF", arch: machine === 62 ? "x64" : machine === 183 ? "arm64" : "other", signature: "none" };
  }
  // 64-bit little-endian Mach-O (MH_MAGIC_64 0xfeedfacf read as LE).
  if (view.getUint32(0, true) === 0xfeedfacf) {
    const cpu = view.getUint32(4, true);
    return {
      format: "Mach-O",
      arch: cpu === 0x01000007 ? "x64" : cpu === 0x0100000c ? "arm64" : "other",
      signature: machoSignature(view),
    };
  }
  // PE: "MZ", e_lfanew at 0x3c, then "PE\0\0" and the COFF machine.
  if (data[0] === 0x4d && data[1] === 0x5a) {
    const pe = view.getUint32(0x3c, true);
    if (view.getUint32(pe, true) !== 0x00004550) throw new Error("MZ header without a PE signature");
    const machine = view.getUint16(pe + 4, true);
    return {
      format: "PE",
      arch: machine === 0x8664 ? "x64" : machine === 0xaa64 ? "arm64" : "other",
      signature: "none",
    };
  }
  throw new Error("not an ELF, Mach-O or PE executable");
}

const LC_CODE_SIGNATURE = 0x1d;
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CS_ADHOC = 0x2;

/**
 * Checks the code directory the way the kernel does: every page hash must match and the
 * signature must cover the whole file up to itself. Bun appends the bundle to a signed
 * runtime, and for some targets leaves the runtime's now-stale signature in place.
 */
function machoSignature(view: DataView): ExeFormat["signature"] {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const ncmds = view.getUint32(16, true);
  let at = 32;
  for (let i = 0; i < ncmds && at + 8 <= view.byteLength; i++) {
    const cmd = view.getUint32(at, true);
    const size = view.getUint32(at + 4, true);
    if (cmd === LC_CODE_SIGNATURE) {
      const off = view.getUint32(at + 8, true);
      // Code signature blobs are big-endian.
      if (off + 12 > view.byteLength || view.getUint32(off, false) !== CSMAGIC_EMBEDDED_SIGNATURE) return "invalid";
      const count = view.getUint32(off + 8, false);
      for (let j = 0; j < count; j++) {
        const cd = off + view.getUint32(off + 12 + j * 8 + 4, false);
        if (cd + 40 > view.byteLength || view.getUint32(cd, false) !== CSMAGIC_CODEDIRECTORY) continue;
        const flags = view.getUint32(cd + 12, false);
        const hashOffset = view.getUint32(cd + 16, false);
        const slots = view.getUint32(cd + 28, false);
        const codeLimit = view.getUint32(cd + 32, false);
        const hashSize = view.getUint8(cd + 36);
        const hashType = view.getUint8(cd + 37);
        const pageSize = 2 ** view.getUint8(cd + 39);
        const algorithm =
          hashType === 2 && hashSize === 32 ? "sha256" : hashType === 1 && hashSize === 20 ? "sha1" : undefined;
        if (!algorithm || codeLimit !== off || slots !== Math.ceil(codeLimit / pageSize)) return "invalid";
        for (let k = 0; k < slots; k++) {
          const page = bytes.subarray(k * pageSize, Math.min((k + 1) * pageSize, codeLimit));
          const want = bytes.subarray(cd + hashOffset + k * hashSize, cd + hashOffset + (k + 1) * hashSize);
          const got = createHash(algorithm).update(page).digest();
          if (!got.equals(want)) return "invalid";
        }
        return (flags & CS_ADHOC) !== 0 ? "adhoc" : "signed";
      }
      return "invalid";
    }
    if (size === 0) break;
    at += size;
  }
  return "none";
}
