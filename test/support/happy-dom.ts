/**
 * happy-dom pages for the page scripts' unit tests: a window per call, never a global preload;
 * a test file closes them with `afterAll(closePages)`. Also the small readers of a snapshot
 * result the snapshot tests share.
 */
import { Window, type HTMLElement } from "happy-dom";
import { snapshotMain } from "../../src/page/snapshot/main.ts";
import type { PageWindow, SnapshotElement, SnapshotOptions, SnapshotResult } from "../../src/page/types.ts";

const opened: Window[] = [];

export interface PageOptions {
  url?: string;
  /** The viewport (happy-dom's default otherwise). */
  width?: number;
  height?: number;
  /** `document.write` the html (a whole document: title, head) instead of setting the body. */
  write?: boolean;
}

export interface Page {
  w: Window;
  /** The same window as the page scripts type it. */
  win: PageWindow;
  $: (selector: string) => HTMLElement;
}

export function page(html = "", opts: PageOptions = {}): Page {
  const { url = "https://shop.example/", width, height, write = false } = opts;
  const w = new Window({ url, ...(width !== undefined ? { width } : {}), ...(height !== undefined ? { height } : {}) });
  opened.push(w);
  if (write) w.document.write(html);
  else if (html !== "") w.document.body.innerHTML = html;
  return { w, win: w as unknown as PageWindow, $: (selector) => w.document.querySelector(selector) as HTMLElement };
}

/** A window whose document is written with `html` (a whole document: title, head). */
export function doc(html: string, opts: Omit<PageOptions, "write"> = {}): Page {
  return page(html, { ...opts, write: true });
}

/** For `afterAll`: closes every window `page` opened. */
export async function closePages(): Promise<void> {
  for (const w of opened.splice(0)) await w.happyDOM.close();
}

/** Makes an iframe behave as a cross-origin one: a window, but no document we may read. */
export function crossOrigin(frame: unknown): void {
  Object.defineProperty(frame, "contentDocument", { configurable: true, get: () => null });
  Object.defineProperty(frame, "contentWindow", { configurable: true, get: () => ({}) });
}

export const NO_LAYOUT: SnapshotOptions = { layout: false };

export function snap(win: PageWindow, opts: SnapshotOptions = {}): SnapshotResult {
  return snapshotMain(win, { ...NO_LAYOUT, ...opts });
}

export function els(r: SnapshotResult): SnapshotElement[] {
  return r.elements.filter((e): e is SnapshotElement => e.kind === "element");
}

export function byName(r: SnapshotResult, name: string): SnapshotElement {
  const e = els(r).find((x) => x.name === name);
  if (!e)
    throw new Error(
      `no element named ${name}: ${els(r)
        .map((x) => x.name)
        .join(" | ")}`,
    );
  return e;
}

export function names(r: SnapshotResult): string[] {
  return els(r).map((e) => e.name);
}
