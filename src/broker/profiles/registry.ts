/**
 * Live profile contexts of one connection generation, built passively from the live target table (CDP names a person's
 * profiles only on their targets). Public ids are random and per generation; raw context ids never leave the broker.
 */
import { BpError } from "../../shared/errors.ts";
import type { TargetRecord, TargetTable } from "../targets.ts";

/** Display metadata read by 'bp profiles --identify'; never guessed. */
export interface ProfileIdentity {
  status: "verified" | "unavailable";
  /** A context made over CDP (another tool's, or an automation's): not a person's profile, though Chrome shows it its parent's path. */
  kind?: "context";
  /** The profile's name in Chrome (Local State `name`). */
  name?: string;
  /** Signed-in account's name and e-mail, when Chrome has them. */
  account?: string;
  email?: string;
  directory?: string;
  error?:
    | "profile_path_unavailable"
    | "profile_path_unverified"
    | "local_state_unavailable"
    | "profile_metadata_missing";
}

export interface ProfileContext {
  id: string;
  /** Neutral, numbered in order of first sight within the generation ("Profile 1"). */
  label: string;
  /** Raw CDP browserContextId: broker-internal. */
  contextId: string;
  identity?: ProfileIdentity;
}

/** Upper bounds so a hostile endpoint cannot grow broker memory without limit. */
const MAX_CONTEXTS = 128;
const MAX_RETIRED = 4096;

/** Every id this broker process ever handed out, so a stale one is told apart from a typo. */
const issued = new Set<string>();

function newId(): string {
  for (;;) {
    const n = crypto.getRandomValues(new Uint32Array(1))[0] ?? 0;
    const id = `p${(n % 36 ** 6).toString(36).padStart(6, "0")}`;
    if (!issued.has(id)) {
      issued.add(id);
      if (issued.size > MAX_RETIRED) issued.delete(issued.values().next().value ?? id);
      return id;
    }
  }
}

export const PROFILE_ID = /^p[0-9a-z]{6}$/;

export class ProfileRegistry {
  private readonly byContext = new Map<string, ProfileContext>();
  private readonly byId = new Map<string, ProfileContext>();

  constructor(private readonly targets: TargetTable) {}

  forContext(contextId: string): ProfileContext | undefined {
    let p = this.byContext.get(contextId);
    if (!p) {
      if (this.byContext.size >= MAX_CONTEXTS) return undefined;
      p = { id: newId(), label: `Profile ${this.byContext.size + 1}`, contextId };
      this.byContext.set(contextId, p);
      this.byId.set(p.id, p);
    }
    return p;
  }

  ofTarget(rec: TargetRecord): ProfileContext | undefined {
    return rec.browserContextId === undefined ? undefined : this.forContext(rec.browserContextId);
  }

  live(): ProfileContext[] {
    const seen = new Set<string>();
    for (const t of this.targets.byId.values()) {
      if (t.type !== "page" || t.browserContextId === undefined || t.internal) continue;
      seen.add(t.browserContextId);
      this.forContext(t.browserContextId);
    }
    return [...this.byContext.values()].filter((p) => seen.has(p.contextId));
  }

  pagesOf(p: ProfileContext): TargetRecord[] {
    return [...this.targets.byId.values()].filter(
      (t) => t.type === "page" && t.browserContextId === p.contextId && !t.internal,
    );
  }

  /** An agent's public id: earlier-connection or never-issued ids are profile_context_stale. */
  resolve(id: string): ProfileContext {
    const p = this.byId.get(id);
    if (!p) {
      const earlier = issued.has(id);
      throw new BpError(
        "profile_context_stale",
        `Profile ${id} ${earlier ? "belonged to an earlier browser connection" : "is not a live profile of this browser"}. Run 'bp profiles'.`,
        {
          retryable: true,
          context: { profile: id, reason: earlier ? "browser_reconnected" : "unknown_profile" },
          remediation: {
            code: "relist_profile_contexts",
            message: "Run 'bp profiles' and choose again.",
            actionRequired: true,
          },
        },
      );
    }
    if (!this.live().includes(p)) {
      throw new BpError("profile_context_unavailable", `Profile ${id} has no open window any more.`, {
        retryable: true,
        context: { profile: id },
        remediation: {
          code: "relist_profile_contexts",
          message: "Run 'bp profiles' and choose again, or ask the person to open that profile.",
          actionRequired: true,
        },
      });
    }
    return p;
  }
}

/** 'bp profile <selector>': a public id, or an exact label, name or e-mail; several matches are refused. */
export function selectProfile(registry: ProfileRegistry, selector: string): ProfileContext {
  if (PROFILE_ID.test(selector)) return registry.resolve(selector);
  const want = selector.trim().toLowerCase();
  const hits = registry
    .live()
    .filter((p) =>
      [p.label, p.identity?.name, p.identity?.email].some((v) => v !== undefined && v.toLowerCase() === want),
    );
  const only = hits[0];
  if (only && hits.length === 1) return only;
  throw new BpError(
    "invalid_argument",
    hits.length > 1
      ? `'${selector}' names ${hits.length} profiles; use an id from 'bp profiles'.`
      : `No live profile is called '${selector}'. Run 'bp profiles'.`,
    {
      context: { field: "profile", selector },
    },
  );
}
