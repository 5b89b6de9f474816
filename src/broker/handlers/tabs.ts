import { protocolErrorCause } from "../../cdp/errors.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import { loadDialog, navigateTo } from "../navigate.ts";
import { forgetAuthSurface } from "../observe/collect.ts";
import { interactiveAhead, lookAhead } from "../observe/ahead.ts";
import { lookAfterLoad } from "../observe/look.ts";
import { wantsLook } from "../../protocol/look-args.ts";
import { routeProfile } from "../profiles/route.ts";
import type { BrowserConnection } from "../browser.ts";
import { assertLocalFileAllowed } from "../local-files.ts";
import { EXCLUDED_SCHEMES, type TargetRecord } from "../targets.ts";
import {
  authFailed,
  clearAuthFailure,
  coverControlledTabs,
  takeAuthFailure,
  takeUrlCredentials,
} from "../net/index.ts";
import { resolveTab, selectedTab, takeControl, type Selected } from "../context/tabs.ts";
import type * as v from "valibot";
import type { tabSchema } from "../../protocol/common.ts";
import * as commands from "../../protocol/commands-tabs.ts";
import { defineHandler } from "../context/handler.ts";
import type { CallContext, Handler } from "../context/types.ts";
import { boundTitle, boundUrl } from "../../shared/page-strings.ts";

/** Lean: `selected` only on the selected tab. */
function describe(ctx: CallContext, rec: TargetRecord, several?: boolean): v.InferOutput<typeof tabSchema> {
  const agent = ctx.agent();
  const browser = ctx.broker.requireBrowser();
  const control = ctx.broker.handoff.get(rec.targetId)
    ? "human"
    : rec.controller === agent.key
      ? "controlled"
      : (rec.controller !== undefined && ctx.broker.agents.get(rec.controller)) || browser.attachedElsewhere(rec)
        ? "busy"
        : "available";
  const profile = profileOf(browser, rec, several);
  return {
    id: agent.idFor(rec.targetId, browser.generation),
    ...(profile ? { profile } : {}),
    origin: rec.origin,
    title: boundTitle(rec.title),
    url: boundUrl(rec.url),
    ...(agent.selected === rec.targetId ? { selected: true as const } : {}),
    control,
  };
}

/** A tab's profile id, shown only while the browser has several profiles open: otherwise it says nothing. */
function profileOf(
  browser: BrowserConnection,
  rec: TargetRecord,
  several = browser.profiles.live().length > 1,
): string | undefined {
  return several ? browser.profiles.ofTarget(rec)?.id : undefined;
}

const tabsHandler = defineHandler(commands.tabs)({
  async run(ctx) {
    const browser = ctx.broker.requireBrowser();
    await browser.refreshTargets();
    const agent = ctx.agent();
    const list = ctx.broker.visibleTabs(agent, ctx.req.tabAccess);
    // Assign ids in a stable order: tabs this agent already knows keep theirs.
    list.sort((a, b) => order(agent.existingId(a.targetId)) - order(agent.existingId(b.targetId)));
    const several = browser.profiles.live().length > 1;
    return { tabs: list.map((t) => describe(ctx, t, several)) };
  },
});

function order(id: string | undefined): number {
  return id === undefined ? Number.MAX_SAFE_INTEGER : Number(id.slice(1));
}

const tabHandler = defineHandler(commands.tab)({
  async run(ctx, { id }) {
    const sel = resolveTab(ctx, id);
    takeControl(ctx, sel);
    sel.agent.selected = sel.rec.targetId;
    // Switching to a tab makes its profile this agent's profile for new tabs (never a permission).
    const p = sel.browser.profiles.ofTarget(sel.rec);
    if (p) sel.agent.profile = { id: p.id, explicit: false };
    // This agent's network rules and credentials apply to the tab from now on.
    await coverControlledTabs(sel.browser, sel.agent.key);
    // Lean: not the id (the agent named it), nor selected and controlled (what this command just made it).
    const { id: _id, selected: _selected, control: _control, ...rest } = describe(ctx, sel.rec);
    return { tab: rest };
  },
});

const tabReleaseHandler = defineHandler(commands.tabRelease)({
  async run(ctx, { id }) {
    const agent = ctx.agent();
    let sel: Selected;
    if (id !== undefined) sel = resolveTab(ctx, id);
    else if (agent.selected !== undefined) sel = selectedTab(ctx, { allowDialog: true });
    else throw new BpError("no_selected_tab", "No tab is selected; name the tab to release.");
    if (sel.rec.controller !== agent.key)
      throw new BpError("target_not_owned", `This agent does not control tab ${sel.id}.`, { context: { tab: sel.id } });
    delete sel.rec.controller;
    if (agent.selected === sel.rec.targetId) agent.selected = undefined;
    // Lean: the id only when the agent did not name it.
    return id === undefined ? { released: sel.id } : {};
  },
});

/** Adds https:// to a bare host (http:// for loopback); refuses javascript: URLs and local files. */
export function normalizeUrl(input: string): string {
  const raw = input.trim();
  if (/^javascript:/i.test(raw)) throw invalidArgument("url", "javascript: URLs are not navigations; use 'bp eval'.");
  // Browser-internal pages carry privileged APIs (settings, extensions): never an agent's to open.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== undefined && EXCLUDED_SCHEMES.includes(`${scheme}:`))
    throw invalidArgument("url", `${scheme}: pages are browser-internal and not available to agents.`);
  if (/^(about|data|file|blob):/i.test(raw) || /^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    let href: string;
    try {
      href = new URL(raw).href;
    } catch {
      throw invalidArgument("url", `Not a valid URL: ${raw}`);
    }
    assertLocalFileAllowed(href);
    return href;
  }
  const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?([/?#]|$)/i.test(raw);
  try {
    return new URL(`${loopback ? "http" : "https"}://${raw}`).href;
  } catch {
    throw invalidArgument("url", `Not a valid URL: ${raw}`);
  }
}

const openHandler = defineHandler(commands.open)({
  // Dispatched when the first tab is created or navigated: a refused profile choice sent nothing.
  dispatch: "lock",
  async run(ctx, args) {
    const browser = ctx.broker.requireBrowser();
    const agent = ctx.agent();
    const given = normalizeUrl(args.url);
    // user:password@ never reaches the browser (it would keep it in the profile's session
    // files): the tab goes to the URL without it and the challenge is answered with it.
    const url = takeUrlCredentials(agent.net, given);
    const explicitProfile = args.profile;
    let rec: TargetRecord;
    let created = false;
    if (args.new || explicitProfile !== undefined || agent.selected === undefined) {
      const route = routeProfile(browser, agent, explicitProfile);
      ctx.markDispatched();
      rec = await browser.createManagedTab(agent.key, route.profile?.contextId);
      if (route.profile && !(agent.profile?.explicit && agent.profile.id === route.profile.id))
        agent.profile = { id: route.profile.id, explicit: route.via === "explicit" };
      if (ctx.signal.aborted) {
        // The agent was already told this command expired or was cancelled: it must not
        // find a tab selected behind its back. The tab is ours, so close it.
        await browser.closeTarget(rec).catch(() => undefined);
        throw new BpError("command_cancelled", "The command ended before its tab was ready.", { retryable: true });
      }
      rec.controller = agent.key;
      agent.selected = rec.targetId;
      created = true;
    } else {
      rec = selectedTab(ctx).rec;
    }
    const id = agent.idFor(rec.targetId, browser.generation);
    if (url !== given) await coverControlledTabs(browser, agent.key);
    await ctx.broker.exclusive(
      rec.targetId,
      async () => {
        const session = await browser.session(rec);
        clearAuthFailure(rec);
        forgetAuthSurface(agent, rec.targetId);
        const framed = agent.frames.get(rec.targetId) !== undefined;
        try {
          await navigateTo(
            session,
            url,
            ctx.deadline,
            ctx.signal,
            rec.targetId,
            interactiveAhead(args, session, rec, framed),
          );
        } catch (err) {
          // Refused credentials end the navigation with an auth error: say which.
          const refused = takeAuthFailure(rec);
          throw refused ? authFailed(id, refused) : err;
        }
        lookAhead(args, session, rec, framed);
        // The browser's own record, not the page's world: a page can shadow document.title.
        const { targetInfo } = await browser.cdp.send("Target.getTargetInfo", { targetId: rec.targetId });
        rec.url = targetInfo.url;
        rec.title = targetInfo.title;
      },
      { whileNavigating: true },
    );
    const refused = takeAuthFailure(rec);
    if (refused) throw authFailed(id, refused);
    const profile = profileOf(browser, rec);
    // Lean: the tab id only for a tab this call made (the agent needs it next; the selected tab
    // it already has), the URL only when it is not the one given (a scheme added, a redirect).
    const finalUrl = boundUrl(rec.url);
    const title = boundTitle(rec.title);
    const dialog = loadDialog(rec);
    const look = wantsLook(args) ? await lookAfterLoad(ctx, args, selectedTab(ctx, { allowDialog: true }), false) : {};
    return {
      ...(created ? { tab: id } : {}),
      ...(profile ? { profile } : {}),
      ...(finalUrl !== args.url ? { url: finalUrl } : {}),
      title,
      ...(dialog ? { dialog } : {}),
      ...look,
    };
  },
});

const closeHandler = defineHandler(commands.close)({
  async run(ctx, args) {
    const browser = ctx.broker.requireBrowser();
    const agent = ctx.agent();
    const closed: string[] = [];
    const notClosed: string[] = [];
    let failure: unknown;
    if (args.all) {
      for (const t of [...browser.targets.byId.values()]) {
        // A person is using it: it stays open until handed back.
        if (t.origin === "user_tab" || t.creator !== agent.key || ctx.broker.handoff.get(t.targetId)) continue;
        const id = agent.idFor(t.targetId, browser.generation);
        try {
          await browser.closeTarget(t);
        } catch (err) {
          // Gone already is closed; a tab the browser would not close stays the agent's, and says so.
          if (protocolErrorCause(err) !== "target_gone") {
            failure ??= err;
            notClosed.push(id);
            continue;
          }
          browser.targets.remove(t.targetId);
        }
        agent.forgetTarget(t.targetId);
        closed.push(id);
      }
      // Nothing closed and something refused: the failure itself, in the command's terms.
      if (closed.length === 0 && failure !== undefined) throw failure;
    } else {
      const sel = selectedTab(ctx, { allowDialog: true });
      await browser.closeTarget(sel.rec);
      agent.forgetTarget(sel.rec.targetId);
      closed.push(sel.id);
    }
    if (agent.selected !== undefined && !browser.targets.byId.has(agent.selected)) agent.selected = undefined;
    return {
      closed,
      ...(notClosed.length > 0 ? { notClosed } : {}),
      remaining: ctx.broker.visibleTabs(agent, ctx.req.tabAccess).length,
    };
  },
});

export const TAB_HANDLERS: Handler[] = [tabsHandler, tabHandler, tabReleaseHandler, openHandler, closeHandler];
