/**
 * `bp state save|load|list|remove`: the selected tab's cookies (HttpOnly included) and the
 * localStorage of its origins, kept in private files (state-files.ts) and put back into the
 * current browser context. Values are never printed: replies carry counts and origins.
 */
import type { Protocol } from "devtools-protocol";
import { attachToTarget } from "../../cdp/session.ts";
import * as commands from "../../protocol/commands-devtools.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import type { BrowserConnection } from "../browser.ts";
import { defineHandler } from "../context/handler.ts";
import { selectedTab } from "../context/tabs.ts";
import type { CallContext, Handler } from "../context/types.ts";
import { listStates, readState, removeState, stateExists, writeState, type SavedState } from "../state-files.ts";

const PAGE_MS = 10_000;

function httpOrigin(o: string | undefined): string | undefined {
  return o && /^https?:\/\/[^/]+$/.test(o) ? o : undefined;
}

/** The origins of a frame tree (top first), web ones only. */
function frameOrigins(tree: Protocol.Page.FrameTree, out: string[] = []): string[] {
  const o = httpOrigin(tree.frame.securityOrigin);
  if (o && !out.includes(o)) out.push(o);
  for (const child of tree.childFrames ?? []) frameOrigins(child, out);
  return out;
}

/** RFC 6265 domain match: the cookie's domain is the host or a parent of it. */
function domainMatches(host: string, domain: string): boolean {
  const d = domain.replace(/^\./, "").toLowerCase();
  const h = host.toLowerCase();
  return h === d || h.endsWith(`.${d}`);
}

function toParam(c: Protocol.Network.Cookie): Protocol.Network.CookieParam {
  return {
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    secure: c.secure,
    httpOnly: c.httpOnly,
    ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    ...(!c.session && c.expires > 0 ? { expires: c.expires } : {}),
    priority: c.priority,
    sourceScheme: c.sourceScheme,
    sourcePort: c.sourcePort,
  };
}

const stateSaveHandler = defineHandler(commands.stateSave)({
  dispatch: "lock",
  async run(ctx, { name }) {
    const { browser, rec } = selectedTab(ctx);
    const home = ctx.broker.paths.home;
    const key = ctx.req.clientKey;
    return ctx.broker.exclusive(rec.targetId, async () => {
      const session = await browser.session(rec);
      const origins = frameOrigins((await session.send("Page.getFrameTree")).frameTree);
      if (origins.length === 0)
        throw new BpError(
          "invalid_argument",
          "The selected tab shows no web page (http or https); open the site first.",
          {
            context: { field: "tab", reason: "no_origin" },
            remediation: {
              code: "select_tab",
              message: "Run 'bp open <url>' on the site, or 'bp tab <id>' for a tab that shows it.",
              actionRequired: true,
            },
          },
        );
      const hosts = origins.map((o) => new URL(o).hostname);
      const all = (
        await browser.cdp.send(
          "Storage.getCookies",
          rec.browserContextId ? { browserContextId: rec.browserContextId } : {},
        )
      ).cookies;
      const cookies = all.filter((c) => !c.partitionKey && hosts.some((h) => domainMatches(h, c.domain))).map(toParam);
      const localStorage: SavedState["localStorage"] = {};
      let items = 0;
      await session.send("DOMStorage.enable");
      try {
        for (const origin of origins) {
          const r = await session
            .send("DOMStorage.getDOMStorageItems", { storageId: { securityOrigin: origin, isLocalStorage: true } })
            .catch(() => undefined);
          const pairs = (r?.entries ?? [])
            .filter((e): e is [string, string] => e.length === 2)
            .map(([k, v]) => [k, v] as [string, string]);
          if (pairs.length > 0) {
            localStorage[origin] = pairs;
            items += pairs.length;
          }
        }
      } finally {
        await session.send("DOMStorage.disable").catch(() => undefined);
      }
      const replaced = stateExists(home, key, name);
      writeState(home, key, name, { version: 1, savedAt: new Date().toISOString(), cookies, localStorage });
      const out = {
        cookies: cookies.length,
        origins: Object.keys(localStorage).length > 0 ? Object.keys(localStorage) : origins,
        items,
        ...(replaced ? { replaced: true as const } : {}),
      };
      return out;
    });
  },
});

/**
 * localStorage of one origin is written from a page of that origin: a short-lived internal
 * tab whose requests are answered locally with an empty page, so none of the site's code
 * runs and nothing reaches the site.
 */
async function writeLocalStorage(
  conn: BrowserConnection,
  contextId: string | undefined,
  origin: string,
  pairs: [string, string][],
): Promise<void> {
  const { targetId } = await conn.cdp.send("Target.createTarget", {
    url: "about:blank",
    background: true,
    ...(contextId ? { browserContextId: contextId } : {}),
  });
  conn.targets.markInternal(targetId);
  conn.janitor.own(targetId);
  try {
    const s = await attachToTarget(conn.cdp, targetId, { timeoutMs: PAGE_MS });
    s.on("Fetch.requestPaused", (p) => {
      void s
        .send("Fetch.fulfillRequest", {
          requestId: p.requestId,
          responseCode: 200,
          responseHeaders: [{ name: "content-type", value: "text/html" }],
          body: Buffer.from("<!doctype html><title></title>").toString("base64"),
        })
        .catch(() => undefined);
    });
    await s.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
    await s.send("Page.navigate", { url: `${origin}/` }, { timeoutMs: PAGE_MS });
    const until = Date.now() + PAGE_MS;
    const expression = `location.origin === ${JSON.stringify(origin)} && (() => { for (const [k, v] of ${JSON.stringify(pairs)}) localStorage.setItem(k, v); return true; })()`;
    for (;;) {
      const r = await s
        .send("Runtime.evaluate", { expression, returnByValue: true }, { timeoutMs: PAGE_MS })
        .catch(() => undefined);
      if (r?.exceptionDetails)
        throw new BpError("quota_exceeded", `The localStorage of ${origin} did not take the saved items.`, {
          context: { quota: "storage", origin },
        });
      if (r?.result.value === true) return;
      if (Date.now() > until)
        throw new BpError("navigation_failed", `Could not open a page of ${origin} to restore its localStorage.`, {
          retryable: true,
          context: { origin },
        });
      await Bun.sleep(50);
    }
  } finally {
    await conn.cdp.send("Target.closeTarget", { targetId }).catch(() => undefined);
    conn.janitor.forget(targetId);
  }
}

/** The browser context loads go into: the selected tab's, else the browser's default. */
function targetContext(ctx: CallContext): string | undefined {
  const agent = ctx.agent();
  const browser = ctx.broker.requireBrowser();
  if (agent.selected === undefined) return undefined;
  return browser.targets.byId.get(agent.selected)?.browserContextId;
}

const stateLoadHandler = defineHandler(commands.stateLoad)({
  async run(ctx, args) {
    const browser = ctx.broker.requireBrowser();
    const state = readState(ctx.broker.paths.home, ctx.req.clientKey, args.name);
    if (browser.info.source !== "launched" && !args["into-user-profile"]) {
      throw invalidArgument(
        "into-user-profile",
        "This is a person's own browser: loading overwrites their cookies for these sites. Add --into-user-profile if they want that.",
        { reason: "user_profile" },
      );
    }
    const contextId = targetContext(ctx);
    ctx.markDispatched();
    if (state.cookies.length > 0)
      await browser.cdp.send("Storage.setCookies", {
        cookies: state.cookies,
        ...(contextId ? { browserContextId: contextId } : {}),
      });
    let items = 0;
    for (const [origin, pairs] of Object.entries(state.localStorage)) {
      if (!httpOrigin(origin) || pairs.length === 0) continue;
      await writeLocalStorage(browser, contextId, origin, pairs);
      items += pairs.length;
    }
    const out = { cookies: state.cookies.length, origins: Object.keys(state.localStorage), items };
    return out;
  },
});

const stateListHandler = defineHandler(commands.stateList)({
  async run(ctx) {
    const states = listStates(ctx.broker.paths.home, ctx.req.clientKey).map(({ name, state }) => ({
      name,
      savedAt: state.savedAt,
      cookies: state.cookies.length,
      origins: Object.keys(state.localStorage),
    }));
    return { states };
  },
});

const stateRemoveHandler = defineHandler(commands.stateRemove)({
  async run(ctx, { name }) {
    removeState(ctx.broker.paths.home, ctx.req.clientKey, name);
    return {};
  },
});

export const STATE_HANDLERS: Handler[] = [stateSaveHandler, stateLoadHandler, stateListHandler, stateRemoveHandler];
