/**
 * Test support: counts the work a page script does on a happy-dom page, so linearity tests compare operations, not
 * wall-clock time. Counted: calls of DOM accessors and methods on the page's node, document and window prototypes, and
 * String charCodeAt/charAt, made by the measured code only.
 */
import type { PageWindow } from "../../src/page/types.ts";

type Fn = (this: unknown, ...a: unknown[]) => unknown;
interface Saved {
  target: object;
  key: string;
  desc: PropertyDescriptor | undefined;
}

function protoChain(o: object, into: Set<object>): void {
  for (
    let p = Object.getPrototypeOf(o) as object | null;
    p && p !== Object.prototype;
    p = Object.getPrototypeOf(p) as object | null
  )
    into.add(p);
}

/** Runs `fn` with every DOM and character access of `win` counted; returns its result and the count. */
export function countWork<T>(win: PageWindow, fn: () => T): { result: T; ops: number } {
  const protos = new Set<object>();
  const doc = win.document as unknown as object;
  protoChain(win as unknown as object, protos);
  protoChain(doc, protos);
  const todo: object[] = [doc];
  while (todo.length > 0) {
    const n = todo.pop() as { childNodes?: ArrayLike<object>; shadowRoot?: object | null };
    protoChain(n, protos);
    if (n.shadowRoot) todo.push(n.shadowRoot);
    for (const c of Array.from(n.childNodes ?? [])) todo.push(c);
  }
  let ops = 0;
  let depth = 0;
  const counted = (f: Fn): Fn =>
    function (this: unknown, ...a: unknown[]): unknown {
      if (depth === 0) ops++;
      depth++;
      try {
        return f.apply(this, a);
      } finally {
        depth--;
      }
    };
  const saved: Saved[] = [];
  const wrap = (target: object, key: string, desc: PropertyDescriptor, own: boolean): void => {
    if (!desc.configurable) return;
    const next: PropertyDescriptor = { ...desc };
    if (desc.get) next.get = counted(desc.get as Fn);
    else if (typeof desc.value === "function") next.value = counted(desc.value as Fn);
    else return;
    saved.push({ target, key, desc: own ? desc : undefined });
    Object.defineProperty(target, key, next);
  };
  for (const p of protos) {
    for (const key of Object.getOwnPropertyNames(p)) {
      if (key === "constructor") continue;
      const d = Object.getOwnPropertyDescriptor(p, key);
      if (d) wrap(p, key, d, true);
    }
  }
  // The window's getComputedStyle may be its own property or inherited; shadow it either way.
  const gcs = Object.getOwnPropertyDescriptor(win, "getComputedStyle");
  if (!gcs) {
    const f = (win as unknown as { getComputedStyle: Fn }).getComputedStyle;
    wrap(win as unknown as object, "getComputedStyle", { value: f, configurable: true, writable: true }, false);
  }
  for (const key of ["charCodeAt", "charAt"]) {
    const d = Object.getOwnPropertyDescriptor(String.prototype, key);
    if (d) wrap(String.prototype, key, d, true);
  }
  try {
    return { result: fn(), ops };
  } finally {
    for (const s of saved.reverse()) {
      if (s.desc) Object.defineProperty(s.target, s.key, s.desc);
      else delete (s.target as Record<string, unknown>)[s.key];
    }
  }
}
