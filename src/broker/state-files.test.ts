import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listStates, readState, removeState, stateExists, writeState, type SavedState } from "./state-files.ts";

const home = mkdtempSync(join(tmpdir(), "bp-state-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const state: SavedState = {
  version: 1,
  savedAt: "2026-01-01T00:00:00.000Z",
  cookies: [{ name: "sid", value: "v", domain: "example.com" }],
  localStorage: { "https://example.com": [["k", "v"]] },
};
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
};

test("saved states are private files per client key; another key sees none of them", () => {
  writeState(home, "agent-a", "login", state);
  expect(statSync(join(home, "state")).mode & 0o777).toBe(0o700);
  expect(statSync(join(home, "state", "agent-a")).mode & 0o777).toBe(0o700);
  expect(statSync(join(home, "state", "agent-a", "login.json")).mode & 0o777).toBe(0o600);
  expect(readState(home, "agent-a", "login")).toEqual(state);
  expect(listStates(home, "agent-a").map((s) => s.name)).toEqual(["login"]);
  expect(listStates(home, "agent-b")).toEqual([]);
  expect(code(() => readState(home, "agent-b", "login"))).toBe("artifact_not_found");
  removeState(home, "agent-a", "login");
  expect(stateExists(home, "agent-a", "login")).toBe(false);
  expect(code(() => removeState(home, "agent-a", "login"))).toBe("artifact_not_found");
});

test("a damaged file is not loaded and not listed", () => {
  writeState(home, "agent-c", "ok", state);
  writeFileSync(join(home, "state", "agent-c", "bad.json"), "{nope", { mode: 0o600 });
  expect(code(() => readState(home, "agent-c", "bad"))).toBe("artifact_not_found");
  expect(listStates(home, "agent-c").map((s) => s.name)).toEqual(["ok"]);
});
