import * as v from "valibot";

/** `bp status`'s view of the policy in force for the caller's key. */
export const policySummarySchema = () =>
  v.pipe(
    v.object({
      digest: v.pipe(v.string(), v.description("First 12 hex digits of the file's sha256")),
      deny: v.optional(v.array(v.string())),
      allow: v.optional(v.pipe(v.number(), v.description("Allowed URL patterns (absent: any origin)"))),
      block: v.optional(v.pipe(v.number(), v.description("Denied URL patterns"))),
      tabAccess: v.optional(v.literal("own")),
      uploadDirs: v.optional(v.pipe(v.number(), v.description("Directories uploads may come from"))),
      downloads: v.optional(
        v.pipe(v.union([v.literal("off"), v.number()]), v.description("'off' or the largest download in bytes")),
      ),
    }),
    v.description("Only when a host policy is in force ($BROWSER_PILOT_HOME/policy.json)"),
  );
export type PolicySummary = v.InferOutput<ReturnType<typeof policySummarySchema>>;
