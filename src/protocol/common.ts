import * as v from "valibot";
import { remediationSchema } from "./define.ts";

export const TAB_ID = /^t[1-9][0-9]{0,8}$/;
export const tabIdArg = (description: string) =>
  v.pipe(v.string(), v.regex(TAB_ID, "Tab ids look like t1, t2, …"), v.description(description));

export const browserCandidateSchema = v.object({
  id: v.string(),
  product: v.string(),
  channel: v.string(),
  userDataRoot: v.string(),
  processState: v.picklist(["running", "not_running", "unknown"]),
  remoteDebuggingState: v.picklist(["enabled", "disabled", "stale"]),
  authorizationState: v.picklist(["authorized", "required", "not_applicable", "unknown"]),
  state: v.picklist(["ready", "not_running", "remote_debugging_disabled", "authorization_required", "disconnected"]),
  remediation: v.optional(
    v.pipe(
      remediationSchema,
      v.description(
        "What makes it connectable; <id> in the message stands for this browser's id; actionRequired only when true (the user must act)",
      ),
    ),
  ),
});

export const tabOrigin = v.picklist(["managed", "managed_popup", "user_tab"]);

export const tabSchema = v.object({
  id: v.string(),
  /** Present only while the browser has several profiles open. */
  profile: v.optional(v.string()),
  origin: tabOrigin,
  title: v.string(),
  url: v.string(),
  selected: v.optional(v.pipe(v.literal(true), v.description("The agent's selected tab (absent: not selected)"))),
  control: v.picklist(["available", "controlled", "busy", "human"]),
});

export const connectedBrowserSchema = v.object({
  id: v.string(),
  product: v.string(),
  version: v.optional(v.string()),
  source: v.picklist(["discovered", "launched", "remote"]),
  generation: v.number(),
});
