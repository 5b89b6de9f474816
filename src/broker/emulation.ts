/**
 * Device, locale, network and CPU emulation of one tab: what is in force (for `bp emulate`) and the calls that set it.
 * Network conditions go on the tab's network session, which keeps Network enabled for the tab's life.
 */
import { isCdpError } from "../cdp/errors.ts";
import type { CdpSession } from "../cdp/session.ts";
import { invalidArgument } from "../shared/errors.ts";
import type { TargetRecord } from "./targets.ts";

export interface Emulation {
  viewport?: string;
  width?: number;
  height?: number;
  scale?: number;
  mobile?: true;
  userAgent?: string;
  colorScheme?: "light" | "dark";
  reducedMotion?: true;
  timezone?: string;
  locale?: string;
  geolocation?: string;
  latitude?: number;
  longitude?: number;
  offline?: true;
  throttle?: "slow-3g" | "fast-3g";
  cpuSlowdown?: number;
}

export type EmulationPart = "metrics" | "agent" | "media" | "timezone" | "locale" | "geolocation" | "network" | "cpu";
export const ALL_PARTS: readonly EmulationPart[] = [
  "metrics",
  "agent",
  "media",
  "timezone",
  "locale",
  "geolocation",
  "network",
  "cpu",
];

const inForce = new WeakMap<TargetRecord, Emulation>();

export function emulationOf(rec: TargetRecord): Emulation {
  return inForce.get(rec) ?? {};
}

export function setEmulation(rec: TargetRecord, e: Emulation): void {
  inForce.set(rec, e);
}

/** Chrome DevTools' presets: latency in ms, throughput in bytes per second. */
const THROTTLE = {
  "slow-3g": { latency: 2000, downloadThroughput: 50_000, uploadThroughput: 50_000 },
  "fast-3g": { latency: 562.5, downloadThroughput: 180_000, uploadThroughput: 84_375 },
} as const;

function mobileAgent(product: string | undefined): string {
  const major = /\/(\d+)\./.exec(product ?? "")?.[1] ?? "130";
  return `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`;
}

/** The published view of what is in force: no internal fields. */
export function shownEmulation(e: Emulation) {
  return {
    ...(e.viewport !== undefined ? { viewport: e.viewport } : {}),
    ...(e.scale !== undefined ? { scale: e.scale } : {}),
    ...(e.mobile ? { mobile: true as const } : {}),
    ...(e.userAgent !== undefined ? { userAgent: e.userAgent } : {}),
    ...(e.colorScheme !== undefined ? { colorScheme: e.colorScheme } : {}),
    ...(e.reducedMotion ? { reducedMotion: true as const } : {}),
    ...(e.timezone !== undefined ? { timezone: e.timezone } : {}),
    ...(e.locale !== undefined ? { locale: e.locale } : {}),
    ...(e.geolocation !== undefined ? { geolocation: e.geolocation } : {}),
    ...(e.offline ? { offline: true as const } : {}),
    ...(e.throttle !== undefined ? { throttle: e.throttle } : {}),
    ...(e.cpuSlowdown !== undefined ? { cpuSlowdown: e.cpuSlowdown } : {}),
  };
}

interface Sessions {
  main: CdpSession;
  /** The network session (net/tracker.ts); the main one when it is not there. */
  net: CdpSession;
  product: string | undefined;
  grantGeolocation: () => Promise<unknown>;
}

/** Puts the named parts of `e` in force (a part absent from `e` is cleared). */
export async function applyEmulation(s: Sessions, e: Emulation, parts: ReadonlySet<EmulationPart>): Promise<void> {
  const { main } = s;
  const calls: Promise<unknown>[] = [];
  const call = (p: Promise<unknown>, field?: string) =>
    calls.push(
      p.catch((err: unknown) => {
        if (field && isCdpError(err) && err.kind === "protocol")
          throw invalidArgument(field, `The browser refused the ${field}: ${err.message}`);
        throw err;
      }),
    );
  if (parts.has("metrics")) {
    if (e.width !== undefined || e.scale !== undefined || e.mobile) {
      call(
        main.send("Emulation.setDeviceMetricsOverride", {
          width: e.width ?? 0,
          height: e.height ?? 0,
          deviceScaleFactor: e.scale ?? 0,
          mobile: e.mobile === true,
        }),
      );
    } else call(main.send("Emulation.clearDeviceMetricsOverride"));
    call(
      main.send(
        "Emulation.setTouchEmulationEnabled",
        e.mobile ? { enabled: true, maxTouchPoints: 5 } : { enabled: false },
      ),
    );
  }
  if (parts.has("agent")) {
    const ua = e.userAgent ?? (e.mobile ? mobileAgent(s.product) : "");
    // An empty user agent clears the override.
    call(
      main.send("Emulation.setUserAgentOverride", {
        userAgent: ua,
        ...(e.locale !== undefined && ua !== "" ? { acceptLanguage: e.locale } : {}),
      }),
      "user-agent",
    );
  }
  if (parts.has("media")) {
    call(
      main.send("Emulation.setEmulatedMedia", {
        media: "",
        features: [
          { name: "prefers-color-scheme", value: e.colorScheme ?? "" },
          { name: "prefers-reduced-motion", value: e.reducedMotion ? "reduce" : "" },
        ],
      }),
    );
  }
  if (parts.has("timezone"))
    call(main.send("Emulation.setTimezoneOverride", { timezoneId: e.timezone ?? "" }), "timezone");
  if (parts.has("locale"))
    call(main.send("Emulation.setLocaleOverride", e.locale !== undefined ? { locale: e.locale } : {}), "locale");
  if (parts.has("geolocation")) {
    if (e.latitude !== undefined && e.longitude !== undefined) {
      call(
        main.send("Emulation.setGeolocationOverride", { latitude: e.latitude, longitude: e.longitude, accuracy: 10 }),
        "geolocation",
      );
      call(s.grantGeolocation());
    } else call(main.send("Emulation.clearGeolocationOverride"));
  }
  if (parts.has("network")) {
    const t = e.throttle ? THROTTLE[e.throttle] : undefined;
    call(
      s.net.send("Network.emulateNetworkConditions", {
        offline: e.offline === true,
        latency: t?.latency ?? 0,
        downloadThroughput: t?.downloadThroughput ?? -1,
        uploadThroughput: t?.uploadThroughput ?? -1,
      }),
    );
  }
  if (parts.has("cpu")) call(main.send("Emulation.setCPUThrottlingRate", { rate: e.cpuSlowdown ?? 1 }));
  const results = await Promise.allSettled(calls);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  // A lost browser or deadline maps to its code in the command runtime.
  if (failed) throw failed.reason;
}
