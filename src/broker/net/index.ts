import { BpError } from "../../shared/errors.ts";
import type { BrowserConnection } from "../browser.ts";
import { redactUrl } from "./redact.ts";
import { storeFor } from "../store/index.ts";
import { forgetDownloads } from "./downloads.ts";
import { dropNet } from "./state.ts";
import { syncAllTabs } from "./tracker.ts";

export { installNet, takeAuthFailure, clearAuthFailure, type NetHost } from "./tracker.ts";
export { redactDeep, redactUrl } from "./redact.ts";

/**
 * An agent disconnected or its lease ran out: its rules and credentials stop applying at
 * once (Fetch goes off where nothing else needs it), its journal and stored files go, and
 * its downloads are no longer tracked (Chrome's own downloads carry on).
 */
export async function releaseNet(conn: BrowserConnection | undefined, key: string, home: string): Promise<void> {
  dropNet(key);
  forgetDownloads(key);
  storeFor(home).releaseOwner(key);
  await syncAllTabs(conn);
}

/** The server refused this agent's credentials once; we cancelled instead of retrying. */
export function authFailed(tab: string, f: { url: string; realm: string }): BpError {
  return new BpError("auth_failed", `The server refused the HTTP credentials for ${redactUrl(f.url)}${f.realm ? ` (realm "${f.realm.slice(0, 100)}")` : ""}; they were not retried.`, {
    context: { tab, url: redactUrl(f.url) },
    remediation: { code: "check_credentials", message: "Check the user name and password, then run 'bp auth <user> --password-stdin' again (or 'bp auth --clear').", actionRequired: true },
  });
}
