/**
 * Which profile a new managed tab goes to (spec BR-31): explicit id, else the selected tab's profile, else the agent's
 * selection, else the only live profile. Otherwise profile_selection_required before anything is sent: never the first
 * profile found (it could be the wrong person's).
 */
import { BpError } from "../../shared/errors.ts";
import type { TargetTable } from "../targets.ts";
import type { ProfileContext, ProfileRegistry } from "./registry.ts";

/** An agent's profile choice: made with 'bp profile' (explicit) or taken from a tab it switched to. */
export interface ProfileSelection {
  id: string;
  explicit: boolean;
}

export interface RoutingAgent {
  selected: string | undefined;
  profile: ProfileSelection | undefined;
}

export interface ProfileRoute {
  profile: ProfileContext | undefined;
  via: "explicit" | "selected_tab" | "agent_selection" | "only_profile" | "browser_default";
}

export function routeProfile(
  conn: { profiles: ProfileRegistry; targets: TargetTable },
  agent: RoutingAgent,
  explicit?: string,
): ProfileRoute {
  const { profiles, targets } = conn;
  if (explicit !== undefined) return { profile: profiles.resolve(explicit), via: "explicit" };
  const tab = agent.selected === undefined ? undefined : targets.byId.get(agent.selected);
  const ofTab = tab ? profiles.ofTarget(tab) : undefined;
  if (ofTab) return { profile: ofTab, via: "selected_tab" };
  if (agent.profile) {
    try {
      return { profile: profiles.resolve(agent.profile.id), via: "agent_selection" };
    } catch (err) {
      // A profile the agent chose is never silently swapped; one taken from a tab is dropped once gone.
      if (agent.profile.explicit) throw err;
      agent.profile = undefined;
    }
  }
  const live = profiles.live();
  if (live.length === 1) return { profile: live[0], via: "only_profile" };
  if (live.length === 0) return { profile: undefined, via: "browser_default" };
  throw new BpError(
    "profile_selection_required",
    `The browser has ${live.length} open profiles; choose one for new tabs.`,
    {
      retryable: false,
      context: {
        profiles: live.map((p) => ({
          id: p.id,
          label: p.label,
          ...(p.identity?.name ? { name: p.identity.name } : {}),
        })),
      },
      remediation: {
        code: "select_profile",
        message:
          "Run 'bp profiles' (or ask the person which profile), then 'bp profile <id>' or 'bp open <url> --new --profile <id>'.",
        actionRequired: true,
      },
    },
  );
}
