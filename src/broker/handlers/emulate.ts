/**
 * `bp emulate`: device, locale, network and CPU emulation on the agent's own tab. A tab the
 * person opened is never changed, even one the agent has taken: they would see it too.
 */
import { emulate as emulateCommand, latLon, viewportSize } from "../../protocol/commands-devtools.ts";
import { BpError, invalidArgument } from "../../shared/errors.ts";
import { defineHandler } from "../context/handler.ts";
import { selectedTab } from "../context/tabs.ts";
import type { Handler } from "../context/types.ts";
import {
  ALL_PARTS,
  applyEmulation,
  emulationOf,
  setEmulation,
  shownEmulation,
  type Emulation,
  type EmulationPart,
} from "../emulation.ts";
import { netSession } from "../net/tracker.ts";

function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const emulateHandler = defineHandler(emulateCommand)({
  dispatch: "lock",
  async run(ctx, a) {
    const sel = selectedTab(ctx);
    const { browser, rec, agent, id } = sel;
    if (rec.origin === "user_tab" || rec.creator !== agent.key) {
      throw new BpError(
        "target_not_owned",
        `Tab ${id} is not one this agent opened; emulation is only for the agent's own tabs (a person would see it too).`,
        {
          context: { tab: id },
          remediation: {
            code: "open_own_tab",
            message: "Run 'bp open <url> --new' and emulate there.",
            actionRequired: true,
          },
        },
      );
    }
    return ctx.broker.exclusive(rec.targetId, async () => {
      const next: Emulation = a.reset ? {} : { ...emulationOf(rec) };
      const parts = new Set<EmulationPart>(a.reset ? ALL_PARTS : []);
      if (a.viewport !== undefined) {
        const size = viewportSize(a.viewport);
        if (size) Object.assign(next, { viewport: `${size.width}x${size.height}`, ...size });
        parts.add("metrics");
      }
      if (a.scale !== undefined) {
        next.scale = a.scale;
        parts.add("metrics");
      }
      if (a.mobile) {
        next.mobile = true;
        parts.add("metrics").add("agent");
      }
      if (a["user-agent"] !== undefined) {
        next.userAgent = a["user-agent"];
        parts.add("agent");
      }
      if (a["color-scheme"] !== undefined) {
        next.colorScheme = a["color-scheme"];
        parts.add("media");
      }
      if (a["reduced-motion"]) {
        next.reducedMotion = true;
        parts.add("media");
      }
      if (a.timezone !== undefined) {
        // Chromium takes an unknown zone without a word (and keeps UTC): ask ICU here first.
        if (!knownTimeZone(a.timezone))
          throw invalidArgument("timezone", `Unknown time zone '${a.timezone}'; give an IANA name like Europe/Berlin.`);
        next.timezone = a.timezone;
        parts.add("timezone");
      }
      if (a.locale !== undefined) {
        next.locale = a.locale;
        parts.add("locale").add("agent");
      }
      if (a.geolocation !== undefined) {
        const at = latLon(a.geolocation);
        if (at) Object.assign(next, { geolocation: `${at.latitude},${at.longitude}`, ...at });
        parts.add("geolocation");
      }
      if (a.offline) {
        next.offline = true;
        delete next.throttle;
        parts.add("network");
      }
      if (a.throttle !== undefined) {
        next.throttle = a.throttle;
        delete next.offline;
        parts.add("network");
      }
      if (a["cpu-slowdown"] !== undefined) {
        if (a["cpu-slowdown"] === 1) delete next.cpuSlowdown;
        else next.cpuSlowdown = a["cpu-slowdown"];
        parts.add("cpu");
      }
      if (parts.size > 0) {
        const main = await browser.session(rec);
        const net = netSession(browser, rec.targetId) ?? main;
        ctx.markDispatched();
        let origin: string | undefined;
        try {
          const u = new URL(rec.url);
          if (u.protocol === "http:" || u.protocol === "https:") origin = u.origin;
        } catch {
          origin = undefined;
        }
        await applyEmulation(
          {
            main,
            net,
            product: browser.info.version,
            grantGeolocation: () =>
              browser.cdp.send("Browser.grantPermissions", {
                permissions: ["geolocation"],
                ...(origin ? { origin } : {}),
                ...(rec.browserContextId ? { browserContextId: rec.browserContextId } : {}),
              }),
          },
          next,
          parts,
        );
        setEmulation(rec, next);
      }
      const emulation = shownEmulation(next);
      return { emulation };
    });
  },
});

export const EMULATE_HANDLERS: Handler[] = [emulateHandler];
