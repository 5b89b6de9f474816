/**
 * The document's live regions: what a screen reader announces when it changes (role status,
 * alert or log, an aria-live region that is not "off", <output>). A toast saying "Saved", a
 * form's error, a chat log's new line are not interactive elements, so no snapshot lists them;
 * a diff (an action's reply) says what they announced since the previous observation
 * (broker/render/diff.ts `announced`). Each region gets a key the first time it is seen, unique to it and
 * its document, so a region removed and added again is new. A region that grows by entries
 * (a log, or any region too long to read whole) is read as its newest entry: its last child
 * element with text.
 *
 * Bounded, for hostile and huge pages alike: at most SCANNED matches looked at, MAX_REGIONS
 * read, nested regions only through their outermost, and each text read by a walk that stops
 * at READ_CHARS characters or READ_NODES nodes (never the whole subtree's text or layout).
 */
import type { LiveText, PageElement, PageNode, PageText } from "../types.ts";
import { cut } from "./text.ts";
import type { Run } from "./types.ts";

const LIVE = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"], output';
const SCANNED = 200;
const MAX_REGIONS = 20;
/** Characters of a region's text kept; read at most READ_CHARS, visiting at most READ_NODES nodes. */
const MAX_TEXT = 300;
const READ_CHARS = 1_200;
const READ_NODES = 2_000;
const NOT_TEXT: Record<string, true> = { script: true, style: true, template: true, noscript: true };
/** Elements whose edges separate words (no computed styles are read: the walk stays cheap). */
const BLOCK: Record<string, true> = {};
for (const t of "address article aside blockquote br dd div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table td th tr ul".split(
  " ",
))
  BLOCK[t] = true;

export function liveTexts(run: Run): LiveText[] {
  const out: LiveText[] = [];
  let list: ArrayLike<PageElement>;
  try {
    list = run.topDoc.querySelectorAll(LIVE);
  } catch {
    return out;
  }
  for (let i = 0; i < list.length && i < SCANNED && out.length < MAX_REGIONS; i++) {
    const el = list[i];
    if (!el) continue;
    try {
      // The outermost region says it all: an inner one's text is part of it.
      if (el.parentElement?.closest?.(LIVE)) continue;
      if (run.LAYOUT && el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }))
        continue;
      const whole = read(el);
      const text = el.getAttribute("role") === "log" || whole.long ? newest(el) : whole.text;
      // An empty region announces nothing; leaving it out keeps the room for the others.
      if (text) out.push({ key: keyOf(run, el), text });
    } catch {
      run.errors++;
    }
  }
  return out;
}

/** The last of the region's child elements (at most five from the end) that has text. */
function newest(el: PageElement): string {
  let child = el.lastElementChild ?? null;
  for (let k = 0; child && k < 5; k++) {
    const t = read(child).text;
    if (t) return t;
    child = previousElement(child);
  }
  return "";
}

function previousElement(el: PageElement): PageElement | null {
  let n: PageNode | null = el.previousSibling;
  while (n && n.nodeType !== 1) n = n.previousSibling;
  return n as PageElement | null;
}

/**
 * The text under an element, whitespace collapsed, without scripts, styles and hidden subtrees; `long` past READ_CHARS.
 */
function read(root: PageElement): { text: string; long: boolean } {
  let text = "";
  let nodes = 0;
  // A string on the stack is text to add once everything pushed after it is read: a block's end.
  const stack: (PageNode | string)[] = [root];
  while (stack.length > 0) {
    const n = stack.pop() as PageNode | string;
    if (typeof n === "string") {
      text += n;
      continue;
    }
    if (++nodes > READ_NODES || text.length > READ_CHARS) return { text: finish(text), long: true };
    if (n.nodeType === 3) {
      text += (n as PageText).data;
      continue;
    }
    if (n.nodeType !== 1) continue;
    const e = n as PageElement;
    if (e !== root && (NOT_TEXT[e.localName] || e.hasAttribute("hidden") || e.getAttribute("aria-hidden") === "true"))
      continue;
    if (BLOCK[e.localName]) {
      text += " ";
      stack.push(" ");
    }
    const kids = e.childNodes;
    for (let k = kids.length - 1; k >= 0; k--) {
      const c = kids[k];
      if (c) stack.push(c);
    }
  }
  return { text: finish(text), long: false };
}

function finish(text: string): string {
  return cut(text.replace(/\s+/g, " ").trim(), MAX_TEXT);
}

function keyOf(run: Run, el: PageElement): string {
  const reg = run.registry;
  // A prefix per document: keys of two documents never meet, whichever the diff compares.
  reg.live ??= { prefix: Math.random().toString(36).slice(2, 8), next: 0, byEl: new WeakMap() };
  let key = reg.live.byEl.get(el);
  if (key === undefined) {
    key = `${reg.live.prefix}:${++reg.live.next}`;
    reg.live.byEl.set(el, key);
  }
  return key;
}
