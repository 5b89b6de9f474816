import * as v from "valibot";
import { once } from "./define.ts";

/** A download as the agent sees it (`bp downloads`, and an action's evidence when it started one). */
export const downloadItem = once(() =>
  v.object({
    id: v.string(),
    fileName: v.string(),
    state: v.picklist(["in_progress", "completed", "failed", "canceled"]),
    url: v.string(),
    tab: v.string(),
    mimeType: v.optional(v.string()),
    sizeBytes: v.optional(v.number()),
    receivedBytes: v.optional(v.number()),
    totalBytes: v.optional(v.number()),
    error: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "Why there is no private copy: quota_exceeded, file_unavailable, copy_failed, ownership_conflict, remote_file_system (a remote browser saved it on its own machine and bp could not capture it), policy_denied (the host policy's downloads rule cancelled it)",
        ),
      ),
    ),
    startedAt: v.string(),
    expiresAt: v.optional(v.string()),
  }),
);
