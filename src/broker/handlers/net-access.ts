/**
 * bp cookies and bp auth. Cookie values are secrets (shown only with --values); the password
 * comes on stdin only and is held in broker memory while configured.
 */
import type { Protocol } from "devtools-protocol";
import { invalidArgument } from "../../shared/errors.ts";
import { cutString } from "../../shared/page-strings.ts";
import { selectedTab } from "../context/tabs.ts";
import * as commands from "../../protocol/commands-net.ts";
import { defineHandler, type ReplyOf } from "../context/handler.ts";
import type { Handler } from "../context/types.ts";
import { coverControlledTabs } from "../net/index.ts";
import { interceptingTabs, syncAllTabs } from "../net/tracker.ts";

const MAX_COOKIE_VALUE = 4096;

type Cookies = ReplyOf<typeof commands.cookies.result>;

function cookieMatchesDomain(cookieDomain: string, domain: string): boolean {
  const c = cookieDomain.replace(/^\./, "").toLowerCase();
  const d = domain.replace(/^\./, "").toLowerCase();
  return c === d || c.endsWith(`.${d}`) || d.endsWith(`.${c}`);
}

const cookiesHandler = defineHandler(commands.cookies)({
  async run(ctx, args) {
    const domain = args.domain;
    const withValues = args.values;
    const limit = args.limit;
    let list: Protocol.Network.Cookie[];
    if (domain !== undefined) {
      const d =
        domain
          .trim()
          .replace(/^https?:\/\//i, "")
          .split("/")[0] ?? "";
      if (!/^[a-z0-9.-]+(:\d+)?$/i.test(d)) throw invalidArgument("domain", "Give a domain such as example.com.");
      const browser = ctx.broker.requireBrowser();
      const sel = ctx.agent().selected ? selectedTab(ctx, { allowDialog: true }) : undefined;
      const all = (
        await browser.cdp.send(
          "Storage.getCookies",
          sel?.rec.browserContextId ? { browserContextId: sel.rec.browserContextId } : {},
        )
      ).cookies;
      const host = d.split(":")[0] ?? d;
      list = all.filter((c) => cookieMatchesDomain(c.domain, host));
    } else {
      const sel = selectedTab(ctx, { allowDialog: true });
      const session = await sel.browser.session(sel.rec);
      list = (await session.send("Network.getCookies", { urls: [sel.rec.url] })).cookies;
    }
    const shown: Cookies["cookies"] = list.slice(0, limit).map((c) => ({
      name: c.name,
      ...(withValues
        ? { value: c.value.length > MAX_COOKIE_VALUE ? `${cutString(c.value, MAX_COOKIE_VALUE)}…` : c.value }
        : { valueLength: c.value.length }),
      domain: c.domain,
      path: c.path,
      ...(!c.session && c.expires > 0 ? { expires: new Date(c.expires * 1000).toISOString() } : {}),
      ...(c.httpOnly ? { httpOnly: true } : {}),
      ...(c.secure ? { secure: true } : {}),
      ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    }));
    // Lean: the list is the answer (even when empty); the count only when it was cut.
    const out: Cookies = {
      cookies: shown,
      ...(list.length > limit ? { total: list.length, truncated: true as const } : {}),
    };
    return out;
  },
});

const authHandler = defineHandler(commands.auth)({
  async run(ctx, args) {
    const key = ctx.req.clientKey;
    const username = args.user;
    // The command's rules leave two cases: --clear (or nothing at all) clears, a user name comes with --password-stdin.
    if (args.clear || username === undefined) {
      const s = ctx.broker.agents.get(key)?.netIfAny;
      if (s) {
        delete s.auth;
        delete s.urlAuth;
      }
      await syncAllTabs(ctx.broker.browser);
      return { auth: "cleared" };
    }
    const password = ctx.req.secret;
    if (password === undefined) throw invalidArgument("password", "No password arrived on stdin.");
    ctx.agent();
    ctx.agent().net.auth = { username, password };
    await coverControlledTabs(ctx.broker.browser, key);
    const n = interceptingTabs(ctx.broker.browser, key);
    // Lean: no user name (the agent gave it).
    return { auth: "set", ...(n > 0 ? { intercepting: n } : {}) };
  },
});

export const ACCESS_HANDLERS: Handler[] = [cookiesHandler, authHandler];
