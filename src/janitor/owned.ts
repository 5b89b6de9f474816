/**
 * The targets bp created and popups whose opener chain is ours, in the janitor's memory: only these close when the
 * broker dies.
 */
export class OwnedTargets {
  private readonly depth = new Map<string, number>();
  static readonly MAX = 4096;

  own(targetId: string): void {
    if (this.depth.size < OwnedTargets.MAX) this.depth.set(targetId, 0);
  }

  /** A popup is ours only when its opener is ours: fail closed otherwise. */
  maybeAdoptPopup(targetId: string, openerId: string | undefined): boolean {
    if (openerId === undefined || this.depth.has(targetId)) return false;
    const parent = this.depth.get(openerId);
    if (parent === undefined || this.depth.size >= OwnedTargets.MAX) return false;
    this.depth.set(targetId, parent + 1);
    return true;
  }

  forget(targetId: string): void {
    this.depth.delete(targetId);
  }

  has(targetId: string): boolean {
    return this.depth.has(targetId);
  }

  get size(): number {
    return this.depth.size;
  }

  /** Deepest popups first, so no opener closes before its children are handled. */
  closingOrder(): string[] {
    return [...this.depth.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
  }
}
