import { describe, expect, test } from "bun:test";
import type { Protocol } from "devtools-protocol";
import { BpError } from "../../shared/errors.ts";
import { TargetTable } from "../targets.ts";
import { ProfileRegistry, selectProfile } from "./registry.ts";
import { routeProfile, type RoutingAgent } from "./route.ts";

function page(targetId: string, browserContextId: string, url = "https://example.test/"): Protocol.Target.TargetInfo {
  return { targetId, type: "page", title: targetId, url, attached: false, canAccessOpener: false, browserContextId };
}

function browser(...pages: Protocol.Target.TargetInfo[]) {
  const targets = new TargetTable();
  for (const p of pages) targets.upsert(p);
  return { targets, profiles: new ProfileRegistry(targets) };
}

const agent = (over: Partial<RoutingAgent> = {}): RoutingAgent => ({
  selected: undefined,
  profile: undefined,
  ...over,
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof BpError ? err.code : "not_bp_error";
  }
  return undefined;
}

describe("routeProfile", () => {
  test("order: explicit, selected tab, agent selection, only profile", () => {
    const b = browser(page("A1", "CTX-A"), page("B1", "CTX-B"));
    const [a, bp] = b.profiles.live();
    if (!a || !bp) throw new Error("two profiles expected");
    expect(routeProfile(b, agent({ selected: "A1", profile: { id: bp.id, explicit: true } }), bp.id)).toEqual({
      profile: bp,
      via: "explicit",
    });
    expect(routeProfile(b, agent({ selected: "A1", profile: { id: bp.id, explicit: true } }))).toEqual({
      profile: a,
      via: "selected_tab",
    });
    expect(routeProfile(b, agent({ profile: { id: bp.id, explicit: true } }))).toEqual({
      profile: bp,
      via: "agent_selection",
    });
    const single = browser(page("A1", "CTX-A"));
    expect(routeProfile(single, agent()).via).toBe("only_profile");
    expect(routeProfile(browser(), agent())).toEqual({ profile: undefined, via: "browser_default" });
  });

  test("several unanchored profiles are profile_selection_required, listing them without raw ids", () => {
    const b = browser(page("A1", "CTX-A"), page("B1", "CTX-B"));
    let err: BpError | undefined;
    try {
      routeProfile(b, agent());
    } catch (e) {
      err = e as BpError;
    }
    expect(err?.code).toBe("profile_selection_required");
    expect(JSON.stringify(err?.toJSON())).not.toContain("CTX-");
    expect((err?.context?.profiles as unknown[]).length).toBe(2);
  });

  test("a stale choice: explicit ones fail, inferred ones are dropped", () => {
    const before = browser(page("A1", "CTX-A"), page("B1", "CTX-B"));
    const old = before.profiles.live()[0]?.id ?? "";
    const after = browser(page("A1", "CTX-A"));
    expect(codeOf(() => routeProfile(after, agent({ profile: { id: old, explicit: true } })))).toBe(
      "profile_context_stale",
    );
    const inferred = agent({ profile: { id: old, explicit: false } });
    expect(routeProfile(after, inferred).via).toBe("only_profile");
    expect(inferred.profile).toBeUndefined();
    expect(codeOf(() => after.profiles.resolve("pzzzzzz"))).toBe("profile_context_stale");
  });

  test("a profile whose pages all closed is unavailable; ids are never reused for another context", () => {
    const b = browser(page("A1", "CTX-A"), page("B1", "CTX-B"));
    const bId = b.profiles.live()[1]?.id ?? "";
    b.targets.remove("B1");
    expect(codeOf(() => b.profiles.resolve(bId))).toBe("profile_context_unavailable");
    b.targets.upsert(page("C1", "CTX-C"));
    expect(b.profiles.live().map((p) => p.label)).toEqual(["Profile 1", "Profile 3"]);
    expect(b.profiles.live().map((p) => p.id)).not.toContain(bId);
  });

  test("browser-internal pages count for liveness; our own identification page does not", () => {
    const b = browser(page("A1", "CTX-A"), page("N1", "CTX-B", "chrome://newtab/"));
    expect(b.profiles.live()).toHaveLength(2);
    b.targets.markInternal("X1");
    b.targets.upsert(page("X1", "CTX-C"));
    expect(b.profiles.live()).toHaveLength(2);
  });

  test("selectProfile: id, or an exact label, case-insensitive", () => {
    const b = browser(page("A1", "CTX-A"), page("B1", "CTX-B"));
    const second = b.profiles.live()[1];
    expect(selectProfile(b.profiles, "PROFILE 2")).toBe(second as NonNullable<typeof second>);
    expect(codeOf(() => selectProfile(b.profiles, "Profile"))).toBe("invalid_argument");
  });
});
