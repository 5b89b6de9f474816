/**
 * The DOM members the action scripts (act, edit, scroll, select, upload, quiet) touch, on top
 * of the snapshot's subset in `types.ts`. Structural like that subset: Chromium's window and a
 * happy-dom `Window` both satisfy it at run time. Members some element kinds lack are optional
 * and read defensively.
 */
import type { PageDocument, PageElement, PageNode, PageRect, PageShadowRoot, PageStyle, PageWindow } from "../types.ts";

export interface ActRect extends PageRect {
  right: number;
  bottom: number;
}

export interface ActRange {
  selectNodeContents(node: ActNode): void;
  collapse(toStart?: boolean): void;
}

export interface ActSelection {
  rangeCount: number;
  removeAllRanges(): void;
  addRange(range: ActRange): void;
  toString(): string;
}

export interface ActNode extends PageNode {
  parentNode: ActNode | null;
  firstChild: ActNode | null;
  nextSibling: ActNode | null;
  parentElement?: ActElement | null;
  textContent: string | null;
  data?: string;
  /** Set on shadow roots only. */
  host?: ActElement;
}

export interface ActShadowRoot extends PageShadowRoot, ActNode {
  parentNode: ActNode | null;
  firstChild: ActNode | null;
  nextSibling: ActNode | null;
  host: ActElement;
  activeElement?: ActElement | null;
  elementFromPoint?(x: number, y: number): ActElement | null;
  getElementById?(id: string): ActElement | null;
  getSelection?(): ActSelection | null;
}

export interface ActFile {
  name: string;
}

export interface ActElement extends PageElement, ActNode {
  parentNode: ActNode | null;
  firstChild: ActNode | null;
  nextSibling: ActNode | null;
  ownerDocument: ActDocument;
  shadowRoot: ActShadowRoot | null;
  parentElement: ActElement | null;
  nextElementSibling?: ActElement | null;
  children?: ArrayLike<ActElement>;
  textContent: string | null;
  scrollLeft: number;
  scrollTop: number;
  type?: string;
  label?: string;
  text?: string;
  disabled?: boolean;
  selected?: boolean;
  readOnly?: boolean;
  multiple?: boolean;
  accept?: string;
  files?: ArrayLike<ActFile> | null;
  labels?: ArrayLike<ActElement> | null;
  control?: ActElement | null;
  contentDocument?: ActDocument | null;
  options?: ArrayLike<ActElement>;
  isContentEditable?: boolean;
  selectionStart?: number | null;
  selectionEnd?: number | null;
  select?(): void;
  setSelectionRange?(start: number, end: number): void;
  focus(): void;
  closest(selector: string): ActElement | null;
  querySelector(selector: string): ActElement | null;
  querySelectorAll(selector: string): ArrayLike<ActElement>;
  getRootNode(): ActShadowRoot | ActDocument;
  getBoundingClientRect(): ActRect;
  getClientRects(): ArrayLike<ActRect>;
  scrollIntoView(options: { block?: string; inline?: string; behavior?: string }): void;
  scrollTo(options: { left: number; top: number; behavior: string }): void;
  dispatchEvent(event: ActEvent): boolean;
}

export interface ActDocument extends PageDocument {
  activeElement?: ActElement | null;
  documentElement: ActElement | null;
  body: ActElement | null;
  scrollingElement: ActElement | null;
  defaultView: ActWindow | null;
  visibilityState?: string;
  readyState?: string;
  timeline?: { currentTime: number | null };
  elementFromPoint(x: number, y: number): ActElement | null;
  getElementById(id: string): ActElement | null;
  querySelector(selector: string): ActElement | null;
  querySelectorAll(selector: string): ArrayLike<ActElement>;
  createRange(): ActRange;
  getAnimations?(): ArrayLike<ActAnimation>;
  hasFocus?(): boolean;
}

export interface ActAnimation {
  playState: string;
  startTime: number | null;
  effect: { getComputedTiming?(): { endTime?: number | string }; getKeyframes?(): ArrayLike<object> } | null;
}

/** An event object made by the page's own constructor, so listeners see a normal event. */
export type ActEvent = object;

export interface ActMutationObserver {
  observe(
    target: ActDocument,
    options: {
      subtree?: boolean;
      childList?: boolean;
      attributes?: boolean;
      characterData?: boolean;
      attributeOldValue?: boolean;
    },
  ): void;
  disconnect(): void;
}

export interface ActWindow extends PageWindow {
  document: ActDocument;
  getComputedStyle(element: PageElement): PageStyle;
  getSelection(): ActSelection | null;
  scrollTo(options: { left: number; top: number; behavior: string }): void;
  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(id: number): void;
  requestAnimationFrame(fn: () => void): number;
  cancelAnimationFrame?(id: number): void;
  /** Runs `fn` once the main thread has no task pending (or at `timeout` ms). */
  requestIdleCallback?(fn: () => void, opts?: { timeout?: number }): number;
  cancelIdleCallback?(id: number): void;
  /** The prioritized task scheduler (Chromium): a background task runs once no other task is pending. */
  scheduler?: { postTask?(fn: () => void, options?: { priority?: string }): Promise<unknown> };
  /** The high-resolution clock (ms, monotonic): a floor measured in whole Date.now() ms may end up to 1 ms short. */
  performance?: { now(): number };
  MessageChannel?: new () => {
    port1: { onmessage: (() => void) | null };
    port2: { postMessage(message: unknown): void };
  };
  Event: new (type: string, init?: { bubbles?: boolean; composed?: boolean }) => ActEvent;
  MutationObserver: new (callback: (records: ArrayLike<unknown>) => void) => ActMutationObserver;
  crypto: { getRandomValues(array: Uint32Array): Uint32Array };
  /** The iframe element holding this window's document, inside a same-origin parent. */
  frameElement?: ActElement | null;
  parent?: ActWindow;
  /** The tab's top window (a cross-origin one too: only compared, never read). */
  top?: unknown;
  addEventListener(
    type: string,
    listener: (event: { defaultPrevented: boolean; type: string; isTrusted?: boolean }) => void,
    options?: { capture?: boolean; once?: boolean; passive?: boolean },
  ): void;
  removeEventListener?(type: string, listener: () => void, options?: { capture?: boolean }): void;
}

/** The composed-tree parent: a shadow root's host in place of the root itself. */
export function composedParent(n: ActNode): ActNode | null {
  const p = n.parentNode;
  if (!p) return null;
  return p.nodeType === 11 ? (p.host ?? null) : p;
}

export function composedContains(a: ActNode, b: ActNode | null | undefined): boolean {
  for (let n: ActNode | null | undefined = b, i = 0; n && i < 4096; n = composedParent(n), i++)
    if (n === a) return true;
  return false;
}

/** A symbol-keyed slot on our world's window (the page cannot see the isolated world). */
export function slotOf<T>(win: ActWindow, key: symbol): T | undefined {
  return Reflect.get(win, key) as T | undefined;
}

export function setSlot(win: ActWindow, key: symbol, value: unknown): void {
  Reflect.set(win, key, value);
}

/**
 * The element that really has focus: down through open shadow roots and same-origin frames.
 * Ends at an iframe whose document this world cannot reach; `opaque` says whether it did.
 */
export function deepFocus(win: ActWindow): { el: ActElement | null; opaque: boolean } {
  let a = win.document.activeElement;
  for (let i = 0; a && i < 64; i++) {
    let inner: ActElement | null | undefined = null;
    if (a.shadowRoot && a.shadowRoot.activeElement) inner = a.shadowRoot.activeElement;
    else if (a.localName === "iframe" || a.localName === "frame") {
      try {
        inner = a.contentDocument?.activeElement;
      } catch {
        inner = null;
      }
      if (!inner) return { el: a, opaque: true };
    }
    if (!inner || inner === a) break;
    a = inner;
  }
  return { el: a || null, opaque: false };
}
