import { BpError } from "../../shared/errors.ts";
import type { BrowserConnection } from "../browser.ts";
import { redactUrl } from "./redact.ts";
import { storeFor } from "../store/index.ts";
import { forgetDownloads } from "./downloads.ts";
import { isEligible } from "../targets.ts";
import { connNet } from "./conn.ts";
import { needsFetch } from "./state.ts";
import { syncAllTabs } from "./tracker.ts";
import { cutString } from "../../shared/page-strings.ts";

export { installNet, takeAuthFailure, clearAuthFailure, type NetHost } from "./tracker.ts";
export { redactDeep, redactUrl } from "./redact.ts";
export { takeUrlCredentials } from "./state.ts";

/**
 * An agent disconnected or its lease ran out: its rules and credentials stop applying at
 * once (Fetch goes off where nothing else needs it), its journal and stored files go, and
 * its downloads are no longer tracked (Chrome's own downloads carry on).
 */
export async function releaseNet(
  conn: BrowserConnection | undefined,
  key: string,
  home: string,
  downloadGuids: Parameters<typeof forgetDownloads>[0],
): Promise<void> {
  forgetDownloads(downloadGuids, key);
  storeFor(home).releaseOwner(key);
  await syncAllTabs(conn);
}

/** The server refused this agent's credentials once; we cancelled instead of retrying. */
export function authFailed(tab: string, f: { url: string; realm: string }): BpError {
  return new BpError(
    "auth_failed",
    `The server refused the HTTP credentials for ${redactUrl(f.url)}${f.realm ? ` (realm "${cutString(f.realm, 100)}")` : ""}; they were not retried.`,
    {
      context: { tab, url: redactUrl(f.url) },
      remediation: {
        code: "check_credentials",
        message:
          "Check the user name and password, then run 'bp auth <user> --password-stdin' again (or 'bp auth --clear').",
        actionRequired: true,
      },
    },
  );
}

/**
 * Rules and credentials must hold on every tab the agent controls, also one no command has
 * opened yet (a tab just taken with 'bp tab', which the page may load from at any moment):
 * opening its session starts tracking, and tracking applies the agent's rules.
 */
export async function coverControlledTabs(conn: BrowserConnection | undefined, key: string): Promise<void> {
  // A remote browser's tabs capture downloads (remote-downloads.ts): that needs their sessions too.
  const remote = conn?.info.source === "remote";
  if (!conn || conn.closed || (!remote && !needsFetch(key, connNet(conn)?.host.peekNet(key)).on)) return;
  const mine = [...conn.targets.byId.values()].filter((t) => t.controller === key && isEligible(t));
  await Promise.all(mine.map((t) => conn.session(t).catch(() => undefined)));
  await syncAllTabs(conn);
}
