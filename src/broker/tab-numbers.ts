import { readPrivateFile, writePrivateFileAtomic } from "../shared/private-fs.ts";

/** Numbers reserved per write of the high-water mark, so most new tab ids cost no file write. */
const BLOCK = 32;

/**
 * Tab numbers are never reused for a home, even across broker restarts: an old `t3` must not select a new broker's `t3`
 * (perhaps the person's tab). A private high-water mark file keeps ids short and unique.
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
