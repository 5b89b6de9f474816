/**
 * The document's live regions: what a screen reader announces when it changes (role status,
 * alert or log, an aria-live region that is not "off", <output>). A toast saying "Saved", a
 * form's error, a chat log's new line are not interactive elements, so no snapshot lists them;
 * a diff (an action's reply) says what they announced since the previous observation
 * (diff.ts `announced`). Each region gets a number in the document the first time it is seen,
 * so a region removed and added again is new. A log's text is its newest entry (its last
 * child element): a log grows at its end.
 */
import type { LiveText, PageElement } from "../types.ts";
import { bound, cut } from "./text.ts";
import type { Run } from "./types.ts";

const LIVE = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"], output';
/** At most this many regions, each at most this many characters. */
const MAX_REGIONS = 20;
const MAX_TEXT = 300;

export function liveTexts(run: Run): LiveText[] {
  const out: LiveText[] = [];
  let list: ArrayLike<PageElement>;
  try {
    list = run.topDoc.querySelectorAll(LIVE);
  } catch {
    return out;
  }
  for (let i = 0; i < list.length && out.length < MAX_REGIONS; i++) {
    const el = list[i];
    if (!el) continue;
    try {
      if (run.LAYOUT && el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
      const log = el.getAttribute("role") === "log" ? el.lastElementChild : undefined;
      out.push({ key: keyOf(run, el), text: textOf(log === undefined ? el : log) });
    } catch {
      run.errors++;
    }
  }
  return out;
}

/**
 * The text as shown (innerText: not what is hidden in it), whitespace collapsed, bounded. A
 * region holding a large subtree (aria-live on a whole page) is read as its raw text: innerText
 * lays out and walks everything before it could be cut.
 */
function textOf(el: PageElement | null): string {
  if (!el) return "";
  const raw = String(el.textContent ?? "");
  const shown = raw.length <= 8 * MAX_TEXT && typeof el.innerText === "string" ? el.innerText : raw;
  return cut(bound(shown, 4 * MAX_TEXT).replace(/\s+/g, " ").trim(), MAX_TEXT);
}

function keyOf(run: Run, el: PageElement): number {
  const reg = run.registry;
  if (!reg.live) reg.live = new WeakMap();
  let key = reg.live.get(el);
  if (key === undefined) {
    key = reg.liveNext = (reg.liveNext ?? 0) + 1;
    reg.live.set(el, key);
  }
  return key;
}
