/**
 * A new page in a given profile, in a background window of its own (spec BR-32). Target.createTarget accepts only the
 * default profile and CDP-made contexts; for the person's other profiles our world of a page in it runs
 * `window.open(marker, name, "noopener,popup")`. The target is ours only when marker, opener, window name and context
 * all match; `own` (the janitor) gets it as soon as its id is known.
 */
import type { Protocol } from "devtools-protocol";
import type { CdpConnection } from "../../cdp/connection.ts";
import { CdpAbortedError, CdpTimeoutError, isCdpError } from "../../cdp/errors.ts";
import { currentCallScope, outsideCallScope } from "../../cdp/scope.ts";
import { BpError } from "../../shared/errors.ts";
import { isEligible, type TargetRecord, type TargetTable } from "../targets.ts";

/** How long a createTarget's answer is waited for after its command gave up (the page is closed then). */
const LATE_CREATE_MS = 120_000;
const OPEN_IN_PROFILE_MS = 5_000;
/** Chrome may size a popup window to almost nothing (headless); give it a usable viewport. */
const MIN_WINDOW = { width: 800, height: 600 };
const DEFAULT_WINDOW = { width: 1280, height: 800 };

export interface PageFactory {
  cdp: Pick<CdpConnection, "send" | "on">;
  targets: TargetTable;
  runInPage(rec: TargetRecord, fn: "openPopup", arg: Record<string, unknown>, timeoutMs: number): Promise<unknown>;
}

export interface CreateInProfileOptions {
  contextId: string | undefined;
  own: (targetId: string) => void;
  /** Client key asking, to prefer its own pages as the opener. */
  creator: string;
  signal?: AbortSignal;
}

export interface CreatedPage {
  targetId: string;
  /**
   * Opened as a popup window from inside the profile: new tabs must not open beside it (they would land in the person's
   * window).
   */
  popup: boolean;
}

export async function createPageInProfile(f: PageFactory, opts: CreateInProfileOptions): Promise<CreatedPage> {
  let targetId: string;
  try {
    ({ targetId } = await createOrCloseLate(f, opts, {
      url: "about:blank",
      newWindow: true,
      background: true,
      ...(opts.contextId ? { browserContextId: opts.contextId } : {}),
    }));
  } catch (err) {
    if (
      opts.contextId === undefined ||
      !isCdpError(err) ||
      err.kind !== "protocol" ||
      !/browser context/i.test(err.message)
    )
      throw err;
    return { targetId: await openFromInside(f, opts.contextId, opts), popup: true };
  }
  opts.own(targetId);
  if (opts.contextId !== undefined) await verifyContext(f, targetId, opts.contextId);
  return { targetId, popup: false };
}

/**
 * Target.createTarget within the command's deadline; a page it creates later is still ours: owned, marked and closed.
 */
async function createOrCloseLate(
  f: PageFactory,
  opts: CreateInProfileOptions,
  params: Protocol.Target.CreateTargetRequest,
): Promise<{ targetId: string }> {
  const scope = currentCallScope();
  if (!scope) return await f.cdp.send("Target.createTarget", params);
  const creating = outsideCallScope(() => f.cdp.send("Target.createTarget", params, { timeoutMs: LATE_CREATE_MS }));
  let gaveUp = false;
  creating.then(
    ({ targetId }) => {
      if (!gaveUp) return;
      opts.own(targetId);
      f.targets.markManaged(targetId, opts.creator);
      // Not in the given-up command's scope: its signal is aborted.
      void outsideCallScope(() => f.cdp.send("Target.closeTarget", { targetId }, { timeoutMs: LATE_CREATE_MS })).catch(
        () => undefined,
      );
    },
    () => undefined,
  );
  let timer: Timer | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    const wait = Math.max(1, scope.deadline - Date.now());
    timer = setTimeout(() => reject(new CdpTimeoutError("Target.createTarget", wait)), wait);
    onAbort = () => reject(new CdpAbortedError("Target.createTarget", true, scope.signal.reason));
    if (scope.signal.aborted) onAbort();
    else scope.signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([creating, stop]);
  } catch (err) {
    gaveUp = true;
    throw err;
  } finally {
    clearTimeout(timer);
    if (onAbort) scope.signal.removeEventListener("abort", onAbort);
  }
}

export async function verifyContext(f: PageFactory, targetId: string, contextId: string): Promise<void> {
  const { targetInfo } = await f.cdp.send("Target.getTargetInfo", { targetId });
  if (targetInfo.browserContextId === contextId) return;
  await f.cdp.send("Target.closeTarget", { targetId }).catch(() => undefined);
  throw new BpError("profile_context_unavailable", "The browser put the new tab in another profile; it was closed.", {
    retryable: true,
    remediation: { code: "relist_profile_contexts", message: "Run 'bp profiles' and try again.", actionRequired: true },
  });
}

/** Pages of the profile that can run our window.open: the agent's own first, a person's tab last. */
function openers(f: PageFactory, contextId: string, creator: string): TargetRecord[] {
  const pages = [...f.targets.byId.values()].filter(
    (t) => t.browserContextId === contextId && isEligible(t) && !t.dialog && !t.internal,
  );
  const rank = (t: TargetRecord) =>
    t.origin !== "user_tab" && t.creator === creator ? 0 : t.origin !== "user_tab" ? 1 : 2;
  return pages.sort((a, b) => rank(a) - rank(b));
}

async function openFromInside(f: PageFactory, contextId: string, opts: CreateInProfileOptions): Promise<string> {
  const anchor = openers(f, contextId, opts.creator)[0];
  if (!anchor) {
    throw new BpError(
      "profile_context_unavailable",
      "That profile has no web page Browser Pilot can open a window from (only browser pages are open in it).",
      {
        retryable: true,
        remediation: {
          code: "open_profile_page",
          message: "Ask the person to open any web page in that profile, then try again.",
          actionRequired: true,
        },
      },
    );
  }
  const marker = `about:blank#bp-${crypto.randomUUID()}`;
  const name = `bp-${crypto.randomUUID()}`;
  const offs: (() => void)[] = [];
  let lateOwn = false;
  const found = new Promise<string>((resolve) => {
    const check = (info: Protocol.Target.TargetInfo) => {
      if (info.type !== "page" || info.url !== marker) return;
      if (lateOwn) {
        // Our window.open answered after we gave up: the page is ours, so close it.
        void f.cdp.send("Target.closeTarget", { targetId: info.targetId }).catch(() => undefined);
        return;
      }
      resolve(info.targetId);
    };
    offs.push(f.cdp.on("Target.targetCreated", ({ targetInfo }) => check(targetInfo)));
    offs.push(f.cdp.on("Target.targetInfoChanged", ({ targetInfo }) => check(targetInfo)));
  });
  let targetId: string | undefined;
  try {
    const attempt = (async () => {
      await f.runInPage(anchor, "openPopup", { url: marker, name }, OPEN_IN_PROFILE_MS);
      return found;
    })();
    attempt.catch(() => undefined);
    targetId = await Promise.race([attempt, Bun.sleep(OPEN_IN_PROFILE_MS).then(() => undefined)]).catch(
      () => undefined,
    );
  } finally {
    if (targetId === undefined) {
      lateOwn = true;
      setTimeout(() => {
        for (const off of offs) off();
      }, 30_000).unref();
    } else {
      for (const off of offs) off();
    }
  }
  if (targetId === undefined) {
    throw new BpError(
      "profile_context_unavailable",
      "The profile did not open a new window in time (a popup blocker or a busy page).",
      {
        retryable: true,
        remediation: {
          code: "relist_profile_contexts",
          message: "Try again; if it keeps failing, ask the person to open a window in that profile.",
          actionRequired: false,
        },
      },
    );
  }
  opts.own(targetId);
  try {
    await proveOurs(f, targetId, { opener: anchor.targetId, name, contextId });
  } catch (err) {
    await f.cdp.send("Target.closeTarget", { targetId }).catch(() => undefined);
    throw err;
  }
  await fitWindow(f.cdp, targetId);
  return targetId;
}

/** Opener, window name and context must all match; the marker alone was only the first clue. */
async function proveOurs(
  f: PageFactory,
  targetId: string,
  want: { opener: string; name: string; contextId: string },
): Promise<void> {
  const { targetInfo } = await f.cdp.send("Target.getTargetInfo", { targetId });
  const { sessionId } = await f.cdp.send("Target.attachToTarget", { targetId, flatten: true });
  let readName: unknown;
  try {
    const res = await f.cdp.send(
      "Runtime.evaluate",
      { expression: "window.name", returnByValue: true },
      { sessionId, timeoutMs: OPEN_IN_PROFILE_MS },
    );
    readName = res.result.value;
    // The name did its job; the page the agent loads next must not inherit it.
    await f.cdp.send(
      "Runtime.evaluate",
      { expression: "window.name = ''" },
      { sessionId, timeoutMs: OPEN_IN_PROFILE_MS },
    );
  } finally {
    await f.cdp.send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
  }
  if (targetInfo.openerId !== want.opener || readName !== want.name || targetInfo.browserContextId !== want.contextId) {
    throw new BpError(
      "unknown_outcome",
      "A window opened in the profile could not be proven to be ours; it was closed.",
      { retryable: true, context: { cause: "ownership_unproven" } },
    );
  }
}

async function fitWindow(cdp: PageFactory["cdp"], targetId: string): Promise<void> {
  try {
    const { windowId, bounds } = await cdp.send("Browser.getWindowForTarget", { targetId });
    if ((bounds.width ?? 0) >= MIN_WINDOW.width && (bounds.height ?? 0) >= MIN_WINDOW.height) return;
    await cdp.send("Browser.setWindowBounds", { windowId, bounds: DEFAULT_WINDOW });
  } catch {
    // Sizing is a convenience; the tab works without it.
  }
}
