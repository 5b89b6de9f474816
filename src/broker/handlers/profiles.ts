import type { Agent } from "../agents.ts";
import type { BrowserConnection } from "../browser.ts";
import { identifyProfiles, type IdentifySurface } from "../profiles/identify.ts";
import { selectProfile, type ProfileContext } from "../profiles/registry.ts";
import { routeProfile } from "../profiles/route.ts";
import { isEligible } from "../targets.ts";
import * as commands from "../../protocol/commands-tabs.ts";
import { defineHandler, type ReplyOf } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";

/** Representative tabs per profile: enough to recognise it, few enough to stay cheap. */
const SAMPLE_TABS = 3;

function surface(browser: BrowserConnection): IdentifySurface {
  return {
    cdp: browser.cdp,
    targets: browser.targets,
    session: (rec) => browser.session(rec),
    runInPage: (rec, fn, arg, timeoutMs) => browser.runInPage(rec, fn, arg, timeoutMs),
    own: (id) => browser.janitor.own(id),
    closeTarget: (rec) => browser.closeTarget(rec),
    userDataRoot: browser.info.userDataRoot,
  };
}

/** Where this agent's next new tab would go, without failing when that is still open. */
function routed(browser: BrowserConnection, agent: Agent): ProfileContext | undefined {
  try {
    return routeProfile(browser, agent).profile;
  } catch {
    return undefined;
  }
}

export function profileSummary(
  ctx: CallContext,
  browser: BrowserConnection,
  p: ProfileContext,
  selected: boolean,
): ReplyOf<typeof commands.profile.result>["profile"] {
  const agent = ctx.agent();
  const visible = new Set(ctx.broker.visibleTabs(agent, ctx.req.tabAccess));
  const tabs = browser.profiles.pagesOf(p).filter((t) => isEligible(t) && visible.has(t));
  const id = p.identity;
  return {
    id: p.id,
    label: p.label,
    ...(id?.kind ? { kind: id.kind } : {}),
    ...(id?.name ? { name: id.name } : {}),
    ...(id?.account ? { account: id.account } : {}),
    ...(id?.email ? { email: id.email } : {}),
    ...(id?.directory ? { directory: id.directory } : {}),
    ...(id?.error ? { identity: id.error } : {}),
    ...(selected ? { selected: true } : {}),
    tabCount: tabs.length,
    ...(tabs.length > 0
      ? {
          tabs: tabs
            .slice(0, SAMPLE_TABS)
            .map((t) => ({ id: agent.idFor(t.targetId, browser.generation), title: t.title, url: t.url })),
        }
      : {}),
  };
}

/**
 * For connect: when the browser has several profiles open and nothing tells where this
 * agent's new tabs go, say so at once (one round trip saved, and no guess later).
 */
export function profileChoiceNeeded(ctx: CallContext, browser: BrowserConnection): Record<string, unknown> {
  const live = browser.profiles.live();
  if (live.length < 2 || routed(browser, ctx.agent()) !== undefined) return {};
  return {
    profileSelectionRequired: true,
    profiles: live.map((p) => ({
      id: p.id,
      label: p.label,
      tabCount: profileSummary(ctx, browser, p, false).tabCount,
    })),
  };
}

const profilesHandler = defineHandler(commands.profiles)({
  async run(ctx, args) {
    const browser = ctx.broker.requireBrowser();
    const agent = ctx.agent();
    // Chrome sends no event when a page's title is set, so the sample tabs' titles are read fresh, as 'bp tabs' does.
    await browser.refreshTargets();
    if (args.identify) await identifyProfiles(surface(browser), browser.profiles.live(), ctx.signal);
    const current = routed(browser, agent);
    return { profiles: browser.profiles.live().map((p) => profileSummary(ctx, browser, p, p === current)) };
  },
});

/**
 * Selects the profile for this agent's new tabs. No profile choice is a permission: every
 * tab stays listed and controllable. A selected tab of another profile would anchor new tabs
 * there, so it is deselected (not released; nothing in the browser changes).
 */
const profileHandler = defineHandler(commands.profile)({
  async run(ctx, args) {
    const browser = ctx.broker.requireBrowser();
    const agent = ctx.agent();
    const p = selectProfile(browser.profiles, args.id);
    agent.profile = { id: p.id, explicit: true };
    const tab = agent.selected === undefined ? undefined : browser.targets.byId.get(agent.selected);
    if (tab && tab.browserContextId !== p.contextId) agent.selected = undefined;
    // Lean: not selected:true, which this command just made it.
    return { profile: profileSummary(ctx, browser, p, false) };
  },
});

export const PROFILE_HANDLERS: Handler[] = [profilesHandler, profileHandler];
