import { expect, test } from "bun:test";
import { join } from "node:path";
import { resolvePaths } from "./paths.ts";

test("a home path.join would change is joined by path.join; a plain one by hand, to the same result", () => {
  const homes = [
    "/h",
    "/home/a",
    "/a//b",
    "/a/./b",
    "/a/../b",
    "/a/.",
    "/a/..",
    "/a/b/",
    "/a/...",
    "/a/.b",
    "/a/..b/c",
    "/.x",
    "//a",
    "/a b/c",
  ];
  for (const home of homes) {
    const paths = resolvePaths({ BROWSER_PILOT_HOME: home });
    expect(paths.locator).toBe(join(home, "broker-locator.json"));
    expect(paths.profiles).toBe(join(home, "profiles"));
  }
});

test("an empty BROWSER_PILOT_HOME is refused like a relative one, never the shared default home", () => {
  for (const home of ["", "relative/home"]) {
    let err: unknown;
    try {
      resolvePaths({ BROWSER_PILOT_HOME: home, HOME: "/home/u" });
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string; context?: unknown }).code).toBe("invalid_argument");
    expect((err as { context?: unknown }).context).toEqual({ field: "BROWSER_PILOT_HOME" });
  }
});
