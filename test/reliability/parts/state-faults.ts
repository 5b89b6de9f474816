/**
 * The broker's surroundings (issue 30): an upgrade that replaces the executable under a running
 * broker, a deleted executable, a broken locator, a frozen broker, a state directory that is
 * read-only, full or a file, a start-up lock a failed start left, two HOMEs. Every attempt is
 * a fresh home with real processes (test/reliability/lib/state-faults.ts).
 */
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
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
} from "../lib/state-faults.ts";

interface Plan {
  what: string;
  target: string;
  /** Attempts at full and short scale (0: not in the short run, which npm test's e2e file covers). */
  full: number;
  short: number;
  run(i: number): Promise<string | undefined>;
}

const LOCATORS = Object.keys(LOCATOR_KINDS);
/** The short run's locators: one repaired in place, one replaced over a FIFO, one too big to read. */
const SHORT_LOCATORS = ["truncated", "FIFO", "50 MB file"];

export const stateFaultsPart: Part = {
  name: "state-faults",
  title: "Upgrades, deleted executables, broken state",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const full = ctx.scale === "full";
    const reps = ctx.reps;
    const plans: Plan[] = [
      {
        what: "executable replaced under a running broker with a launched Chromium (cp --remove-destination)",
        target:
          "replies hint broker_outdated (failures in hint); the new file's 'bp disconnect' stops broker and Chromium within 15 s",
        full: 5,
        short: 1,
        run: () => upgradeScenario(),
      },
      {
        what: "a launched Chromium after the last agent's lease ran out",
        target: "broker and Chromium exit within 20 s",
        full: 5,
        short: 0,
        run: () => idleLaunchedScenario(),
      },
      {
        what: "executable deleted, then the janitor killed (browser connection lost)",
        target: "'bp launch' ok (no internal_error ENOENT), one Chromium",
        full: 5,
        short: 1,
        run: () => deletedExecutableScenario(),
      },
      {
        what: `a broken locator in front of a live broker (${LOCATORS.length} kinds: ${LOCATORS.join(", ")})`,
        target:
          "tabs and status reach the same broker, or name its pid with restart_unresponsive_broker (unrepairable), within 5 s",
        full: LOCATORS.length * 3,
        short: SHORT_LOCATORS.length,
        run: (i) =>
          brokenLocatorScenario(
            (full ? LOCATORS[i % LOCATORS.length] : SHORT_LOCATORS[i % SHORT_LOCATORS.length]) ?? "truncated",
          ),
      },
      {
        what: "a frozen broker (SIGSTOP) behind a truncated locator",
        target:
          "named with pid and frozen within 5 s; status recommends kill -CONT <pid>; after SIGCONT the same broker answers",
        full: 3,
        short: 0,
        run: () => frozenBrokenLocatorScenario(),
      },
      {
        what: "status of a frozen broker (SIGSTOP)",
        target: "unresponsive with pid and frozen; recovery kill -CONT <pid>",
        full: 3,
        short: 1,
        run: () => frozenStatusScenario(),
      },
      {
        what: "status after a remote endpoint dropped",
        target: "recovery check_remote_endpoint: bp connect --reconnect",
        full: 3,
        short: 0,
        run: () => remoteDroppedScenario(),
      },
      {
        what: `a state directory bp cannot use (${STATE_DIR_KINDS.join(", ")}; tmpfs in a private mount namespace)`,
        target:
          "state_directory_unusable with fix_state_directory, the path and the errno within 5 s; no empty startup.lock left",
        full: STATE_DIR_KINDS.length * 10,
        short: STATE_DIR_KINDS.length,
        run: (i) => stateDirScenario(STATE_DIR_KINDS[i % STATE_DIR_KINDS.length] ?? "full disk (ENOSPC)"),
      },
      {
        what: "an empty startup.lock a failed start left",
        target: "the next start answers within 5 s",
        full: 10,
        short: 1,
        run: () => emptyStartupLockScenario(),
      },
      {
        what: "BROWSER_PILOT_HOME='' and a home under a missing path",
        target: "invalid_argument (field BROWSER_PILOT_HOME); 'created the state directory' on stderr",
        full: 5,
        short: 1,
        run: () => homeValueScenario(),
      },
      {
        what: "a broker started with one HOME, a caller with another that has a debuggable Chromium",
        target: "browsers lists it, connect --browser <its id> connects, with a home_differs hint",
        full: 3,
        short: 0,
        run: () => twoHomesScenario(),
      },
    ];
    const rows = [];
    for (const plan of plans) {
      const n = reps !== undefined ? Math.max(1, Math.round((plan.full * reps) / 5)) : full ? plan.full : plan.short;
      if (n === 0) continue;
      const tally = new Tally(plan.what, plan.target);
      for (let i = 0; i < n; i++) await tally.attempt(() => plan.run(i));
      ctx.log(`state-faults: ${plan.what.slice(0, 60)}: ${tally.row.tried - tally.row.failed}/${tally.row.tried}`);
      rows.push(tally.row);
    }
    return {
      part: "state-faults",
      title: stateFaultsPart.title,
      rows,
      wallSeconds: (performance.now() - started) / 1000,
      figures: {},
    };
  },
};
