import { afterAll, describe, expect, test } from "bun:test";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isPidAlive, parseSingletonLockTarget, probeProcessState } from "./process-state.ts";
import { deadPid } from "../../test/support/fake-profiles.ts";

describe("parseSingletonLockTarget", () => {
  test("splits at the last dash so hostnames may contain dashes", () => {
    expect(parseSingletonLockTarget("my-laptop-01-4321")).toEqual({ hostname: "my-laptop-01", pid: 4321 });
    expect(parseSingletonLockTarget("vm-1")).toEqual({ hostname: "vm", pid: 1 });
  });

  test.each(["", "host", "host-", "-123", "host-abc", "host-0", "host-12x"])("rejects %p", (t) => {
    expect(parseSingletonLockTarget(t)).toBeUndefined();
  });
});

describe("isPidAlive", () => {
  test("own pid is alive, an unused pid is not", () => {
    expect(isPidAlive(process.pid)).toBe(true);
    expect(isPidAlive(deadPid())).toBe(false);
  });
});

describe("probeProcessState", () => {
  const dirs: string[] = [];
  const profile = async (): Promise<string> => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "bp-lock-"));
    dirs.push(dir);
    return dir;
  };
  const lockTo = async (target: string): Promise<string> => {
    const dir = await profile();
    await fsp.symlink(target, path.join(dir, "SingletonLock"));
    return dir;
  };
  afterAll(async () => {
    await Promise.all(dirs.map((d) => fsp.rm(d, { recursive: true, force: true })));
  });

  test("no lock: not running", async () => {
    expect((await probeProcessState(await profile(), "linux")).state).toBe("not_running");
  });

  test("lock naming this host and a live pid: running, with pid and start time", async () => {
    const probe = await probeProcessState(await lockTo(`${os.hostname()}-${process.pid}`), "linux");
    expect(probe.state).toBe("running");
    expect(probe.pid).toBe(process.pid);
    expect(probe.startedAtMs).toBeGreaterThan(0);
  });

  test("lock left by a crash (dead pid): not running", async () => {
    const probe = await probeProcessState(await lockTo(`${os.hostname()}-${deadPid()}`), "darwin");
    expect(probe.state).toBe("not_running");
  });

  test("lock from another host: not running here even if the pid exists locally", async () => {
    const probe = await probeProcessState(await lockTo(`other-${os.hostname()}-${process.pid}`), "linux");
    expect(probe.state).toBe("not_running");
  });

  test("unreadable lock: unknown", async () => {
    expect((await probeProcessState(await lockTo("garbage"), "linux")).state).toBe("unknown");
    const regular = await profile();
    await fsp.writeFile(path.join(regular, "SingletonLock"), "");
    expect((await probeProcessState(regular, "linux")).state).toBe("unknown");
  });

  test("windows: lockfile presence decides", async () => {
    const dir = await profile();
    expect((await probeProcessState(dir, "win32")).state).toBe("not_running");
    await fsp.writeFile(path.join(dir, "lockfile"), "");
    const probe = await probeProcessState(dir, "win32");
    expect(probe.state).toBe("running");
    expect(probe.startedAtMs).toBeUndefined();
  });
});
