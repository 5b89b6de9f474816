/**
 * A tab when handed to a person and what changed by handback (URL, title, sign-in surface, new tabs), read from the
 * browser and our world, never the page's globals.
 */
import type { BrowserConnection } from "../browser.ts";
import type { TargetRecord } from "../targets.ts";
import { callPage } from "../world.ts";
import type { Baseline, Changes } from "./types.ts";

const CHECK_MS = 2_000;

async function authSurface(browser: BrowserConnection, rec: TargetRecord): Promise<boolean | undefined> {
  try {
    const session = await browser.session(rec);
    const { frameTree } = await session.send("Page.getFrameTree", undefined, { timeoutMs: CHECK_MS });
    return (
      (await callPage(session, frameTree.frame.id, [{ fn: "authField" }], { timeoutMs: CHECK_MS })).results[0] === true
    );
  } catch {
    // A page that does not answer (busy script, crashed renderer) has no known auth state.
    return undefined;
  }
}

export async function takeBaseline(browser: BrowserConnection, rec: TargetRecord): Promise<Baseline> {
  await refreshInfo(browser, rec);
  return {
    url: rec.url,
    title: rec.title,
    auth: await authSurface(browser, rec),
    tabs: new Set(browser.targets.eligible().map((t) => t.targetId)),
  };
}

async function refreshInfo(browser: BrowserConnection, rec: TargetRecord): Promise<void> {
  try {
    const { targetInfo } = await browser.cdp.send(
      "Target.getTargetInfo",
      { targetId: rec.targetId },
      { timeoutMs: CHECK_MS },
    );
    rec.url = targetInfo.url;
    rec.title = targetInfo.title;
  } catch {
    // closed meanwhile: the resync below removes it
  }
}

/** Rebuilds the target table from the browser's list: a person may have changed tabs, and events can be missed. */
export async function resyncTargets(browser: BrowserConnection): Promise<void> {
  const { targetInfos } = await browser.cdp.send("Target.getTargets", undefined, { timeoutMs: CHECK_MS });
  const live = new Set<string>();
  for (const info of targetInfos) {
    live.add(info.targetId);
    browser.targets.upsert(info);
  }
  for (const id of [...browser.targets.byId.keys()]) if (!live.has(id)) browser.targets.remove(id);
}

export async function changesSince(
  browser: BrowserConnection,
  targetId: string,
  before: Baseline | undefined,
): Promise<Changes> {
  await resyncTargets(browser).catch(() => undefined);
  const rec = browser.targets.byId.get(targetId);
  const newTargets = browser.targets
    .eligible()
    .map((t) => t.targetId)
    .filter((id) => id !== targetId && before !== undefined && !before.tabs.has(id));
  if (!rec) return { newTargets, closed: true };
  await refreshInfo(browser, rec);
  const out: Changes = { newTargets };
  if (!before || rec.url !== before.url) out.url = rec.url;
  if (!before || rec.title !== before.title) out.title = rec.title;
  const auth = await authSurface(browser, rec);
  const was = before?.auth;
  if (auth === true) out.authentication_surface = was === true ? "present" : "entered";
  else if (auth === false && was === true) out.authentication_surface = "left";
  return out;
}
