/**
 * Issue 30, items 4-6, 8, 9, 11, 12, 16: each fault reproduced with real processes, files and
 * file systems (test/reliability/lib/state-faults.ts); `npm run reliability -- --part
 * state-faults` repeats them at scale.
 */
import { describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import {
  LOCATOR_KINDS,
  STATE_DIR_KINDS,
  brokenLocatorScenario,
  deletedExecutableScenario,
  emptyStartupLockScenario,
  frozenBrokenLocatorScenario,
  frozenStatusScenario,
  homeValueScenario,
  idleLaunchedScenario,
  remoteDroppedScenario,
  stateDirScenario,
  twoHomesScenario,
  upgradeScenario,
} from "../reliability/lib/state-faults.ts";

requireChromium();

describe("upgrades and a deleted executable", () => {
  test("after the file is replaced, replies say so and its 'bp disconnect' stops the broker and its Chromium", async () => {
    expect(await upgradeScenario()).toBeUndefined();
  }, 90_000);
  test("a broker with no agents left stops its launched Chromium and exits", async () => {
    expect(await idleLaunchedScenario()).toBeUndefined();
  }, 60_000);
  test("with the executable deleted, a lost browser connection is relaunched with one Chromium", async () => {
    expect(await deletedExecutableScenario()).toBeUndefined();
  }, 90_000);
});

describe("a broken locator in front of a live broker", () => {
  for (const kind of Object.keys(LOCATOR_KINDS)) {
    test(`${kind}: the live broker answers or is named with its pid within 5 s`, async () => {
      expect(await brokenLocatorScenario(kind)).toBeUndefined();
    }, 60_000);
  }
  test("a frozen broker behind a broken locator is named frozen with its pid; status recommends SIGCONT", async () => {
    expect(await frozenBrokenLocatorScenario()).toBeUndefined();
  }, 60_000);
});

describe("status recommends what helps", () => {
  test("a frozen broker", async () => {
    expect(await frozenStatusScenario()).toBeUndefined();
  }, 60_000);
  test("a remote endpoint that dropped", async () => {
    expect(await remoteDroppedScenario()).toBeUndefined();
  }, 60_000);
});

describe("state directories", () => {
  for (const kind of STATE_DIR_KINDS) {
    test(`${kind}: state_directory_unusable with fix_state_directory and the path, at once`, async () => {
      expect(await stateDirScenario(kind)).toBeUndefined();
    }, 60_000);
  }
  test("an empty startup.lock left by a failed start is stale", async () => {
    expect(await emptyStartupLockScenario()).toBeUndefined();
  }, 60_000);
  test("an empty BROWSER_PILOT_HOME is refused; a created home is said", async () => {
    expect(await homeValueScenario()).toBeUndefined();
  }, 60_000);
});

test("'browsers' and 'connect' look for browsers in the caller's HOME, and say when the broker's differs", async () => {
  expect(await twoHomesScenario()).toBeUndefined();
}, 90_000);
