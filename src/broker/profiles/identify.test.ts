import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { matchIdentity, readInfoCache } from "./identify.ts";

const root = mkdtempSync(join(tmpdir(), "bp-identify-"));
const userData = join(root, "chrome");
mkdirSync(join(userData, "Profile 2"), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("matchIdentity", () => {
  const cache = {
    "Profile 2": { name: "Work", gaia_name: "Ada Lovelace", user_name: "ada@example.test" },
    Default: { name: "Person 1", user_name: "" },
  };

  test("an exact path under the user-data root is verified from its Local State entry", () => {
    expect(matchIdentity(join(userData, "Profile 2"), userData, cache)).toEqual({
      status: "verified",
      directory: "Profile 2",
      name: "Work",
      account: "Ada Lovelace",
      email: "ada@example.test",
    });
  });

  test("anything less is unavailable with a reason, never a guess", () => {
    expect(matchIdentity("", userData, cache).error).toBe("profile_path_unavailable");
    expect(matchIdentity(join(root, "elsewhere", "Profile 2"), userData, cache).error).toBe("profile_path_unverified");
    expect(matchIdentity(join(userData, "Profile 2"), undefined, cache).error).toBe("profile_path_unverified");
    expect(matchIdentity(join(userData, "Profile 2"), userData, undefined).error).toBe("local_state_unavailable");
    expect(matchIdentity(join(userData, "Profile 9"), userData, cache)).toMatchObject({
      status: "unavailable",
      error: "profile_metadata_missing",
    });
    // Inherited object keys are not profiles.
    expect(matchIdentity(join(userData, "constructor"), userData, cache).error).toBe("profile_metadata_missing");
  });

  test("Local State is read bounded and tolerates garbage", () => {
    writeFileSync(
      join(userData, "Local State"),
      JSON.stringify({ profile: { info_cache: { Default: { name: "X" } } } }),
    );
    expect(readInfoCache(userData)).toEqual({ Default: { name: "X" } });
    writeFileSync(join(userData, "Local State"), "{not json");
    expect(readInfoCache(userData)).toBeUndefined();
    expect(readInfoCache(join(root, "missing"))).toBeUndefined();
  });
});
