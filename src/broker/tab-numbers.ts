import { readPrivateFile, writePrivateFileAtomic } from "../shared/private-fs.ts";

/** Numbers reserved per write of the high-water mark, so most new tab ids cost no file write. */
const BLOCK = 32;

/**
 * Tab numbers are never reused for a home, even across broker restarts: an agent's `t3` from
 * before a restart must not select whatever tab a new broker would call `t3` (perhaps one of
 * the person's). The broker keeps a high-water mark in a private file and a new broker
 * starts numbering above it; ids stay short (`t1` on a fresh home, `t33` after a restart).
 */
export class TabNumbers {
  /** The first number this broker hands out; every lower one belongs to an earlier broker. */
  readonly base: number;
  private reserved: number;

  constructor(private readonly file: string | undefined) {
    const stored = file === undefined ? 0 : Number(readPrivateFile(file)?.trim() ?? "0");
    this.base = Number.isSafeInteger(stored) && stored > 0 ? stored + 1 : 1;
    this.reserved = this.base - 1;
  }

  /** Called before number n is handed out: the mark on disk always covers every number in use. */
  claim(n: number): void {
    if (n <= this.reserved || this.file === undefined) return;
    this.reserved = n + BLOCK - 1;
    try {
      writePrivateFileAtomic(this.file, String(this.reserved));
    } catch {
      // The home is gone or read-only: ids stay unique for this broker's life at least.
    }
  }
}
