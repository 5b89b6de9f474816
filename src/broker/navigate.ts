import type { Protocol } from "devtools-protocol";
import type { CdpSession } from "../cdp/session.ts";
import { BpError } from "../shared/errors.ts";
import { cutString } from "../shared/page-strings.ts";
import type { TargetRecord } from "./targets.ts";

/**
 * After DOMContentLoaded, `load` is waited for at most this long: trackers that never finish must not hold an agent
 * hostage.
 */
const LOAD_GRACE_AFTER_DCL_MS = 2_000;

interface Waiter {
  /** Resolves when the main frame's new document is loaded (or interactive plus grace). */
  done: Promise<{ sameDocument: boolean }>;
  setLoader(loaderId: string | undefined): void;
  dispose(): void;
}

/**
 * Subscribes before the navigation is sent, so no lifecycle event slips past; event-driven, no fixed settle time.
 * `mainFrameId` (a page target's is its target id) saves reading the frame tree.
 */
export async function watchMainFrame(
  session: CdpSession,
  deadline: number,
  signal: AbortSignal,
  mainFrameId?: string,
  interactive?: () => void,
): Promise<Waiter> {
  const mainId = mainFrameId ?? (await session.send("Page.getFrameTree")).frameTree.frame.id;
  const seen: { loaderId: string; name: string }[] = [];
  let loader: string | undefined;
  let expectLoader = false;
  let resolve!: (v: { sameDocument: boolean }) => void;
  let reject!: (e: Error) => void;
  const done = new Promise<{ sameDocument: boolean }>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Cancellation or a closing tab may reject this before anyone awaits it; the caller's await still sees it.
  done.catch(() => undefined);
  let grace: Timer | undefined;
  let told = false;
  const check = () => {
    if (!expectLoader) return;
    for (const e of seen) {
      if (loader !== undefined && e.loaderId !== loader) continue;
      if (e.name === "DOMContentLoaded" && !told) {
        told = true;
        interactive?.();
      }
      if (e.name === "load") return resolve({ sameDocument: false });
      if (e.name === "DOMContentLoaded" && grace === undefined) {
        grace = setTimeout(() => resolve({ sameDocument: false }), LOAD_GRACE_AFTER_DCL_MS);
      }
    }
  };
  const offs = [
    session.on("Page.lifecycleEvent", (p: Protocol.Page.LifecycleEventEvent) => {
      if (p.frameId !== mainId) return;
      if (p.name === "init" && loader === undefined) loader = p.loaderId;
      seen.push({ loaderId: p.loaderId, name: p.name });
      check();
    }),
    session.on("Page.navigatedWithinDocument", (p) => {
      if (p.frameId === mainId && expectLoader && loader === undefined) resolve({ sameDocument: true });
    }),
    session.on("Page.frameNavigated", (p) => {
      if (p.frame.id !== mainId || p.frame.parentId !== undefined) return;
      // A back/forward cache restore brings back a loaded document without lifecycle events.
      if (p.type === "BackForwardCacheRestore") resolve({ sameDocument: false });
    }),
    // A dialog opened while loading holds the load: answer now, naming it, not at the deadline.
    session.on("Page.javascriptDialogOpening", () => resolve({ sameDocument: false })),
    session.onClose(() =>
      reject(
        new BpError("tab_not_found", "The tab closed during navigation.", { context: { reason: "target_closed" } }),
      ),
    ),
  ];
  const timer = setTimeout(() => resolve({ sameDocument: false }), Math.max(0, deadline - Date.now() - 250));
  const onAbort = () => reject(new BpError("command_cancelled", "Navigation wait cancelled."));
  signal.addEventListener("abort", onAbort);
  return {
    done,
    setLoader(id) {
      expectLoader = true;
      if (id !== undefined) loader = id;
      check();
    },
    dispose() {
      for (const off of offs) off();
      clearTimeout(timer);
      clearTimeout(grace);
      signal.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Navigates the main frame and waits until the new document is usable. `interactive`: called once when the new
 * document is interactive (DOMContentLoaded), before its load (a look's calls asked ahead: observe/ahead.ts).
 */
export async function navigateTo(
  session: CdpSession,
  url: string,
  deadline: number,
  signal: AbortSignal,
  mainFrameId?: string,
  interactive?: () => void,
): Promise<void> {
  const waiter = await watchMainFrame(session, deadline, signal, mainFrameId, interactive);
  try {
    const res = await session.send("Page.navigate", { url });
    if (res.errorText) {
      const shown = url.length > 300 ? `${cutString(url, 300)}…` : url;
      throw new BpError("navigation_failed", `Navigation to ${shown} failed: ${res.errorText}.`, {
        retryable: true,
        context: { url: shown, reason: res.errorText },
      });
    }
    if (res.loaderId === undefined) return;
    waiter.setLoader(res.loaderId);
    await waiter.done;
  } finally {
    waiter.dispose();
  }
}

/** Runs a history action (back, forward, reload) and waits for whatever document results (`interactive`: as navigateTo's). */
export async function runAndWait(
  session: CdpSession,
  action: () => Promise<unknown>,
  deadline: number,
  signal: AbortSignal,
  mainFrameId?: string,
  interactive?: () => void,
): Promise<void> {
  const waiter = await watchMainFrame(session, deadline, signal, mainFrameId, interactive);
  try {
    waiter.setLoader(undefined);
    await action();
    await waiter.done;
  } finally {
    waiter.dispose();
  }
}

/** The dialog a navigation stopped on (it holds the load until answered), as its reply names it. */
export function loadDialog(rec: TargetRecord): { id: string; type: string; message: string } | undefined {
  const d = rec.dialog;
  return d ? { id: d.id, type: d.type, message: cutString(d.message, 300) } : undefined;
}
