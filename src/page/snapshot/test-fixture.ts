/** Shared by the snapshot unit tests: happy-dom pages and small readers of a snapshot result. */
import { Window } from "happy-dom";
import { pageSnapshot } from "../snapshot-script.ts";
import type { PageWindow, SnapshotElement, SnapshotOptions, SnapshotResult } from "../types.ts";

// happy-dom windows are created per test, never through a global preload.
const opened: Window[] = [];

export function page(html: string, url = "https://shop.example/"): { w: Window; win: PageWindow } {
  const w = new Window({ url });
  opened.push(w);
  w.document.body.innerHTML = html;
  return { w, win: w as unknown as PageWindow };
}

/** For `afterAll`: closes every window `page` opened. */
export async function closePages(): Promise<void> {
  for (const w of opened.splice(0)) await w.happyDOM.close();
}

export const NO_LAYOUT: SnapshotOptions = { layout: false };

export function snap(win: PageWindow, opts: SnapshotOptions = {}): SnapshotResult {
  return pageSnapshot(win, { ...NO_LAYOUT, ...opts });
}

export function els(r: SnapshotResult): SnapshotElement[] {
  return r.elements.filter((e): e is SnapshotElement => e.kind === "element");
}

export function byName(r: SnapshotResult, name: string): SnapshotElement {
  const e = els(r).find((x) => x.name === name);
  if (!e) throw new Error(`no element named ${name}: ${els(r).map((x) => x.name).join(" | ")}`);
  return e;
}

export function names(r: SnapshotResult): string[] {
  return els(r).map((e) => e.name);
}
