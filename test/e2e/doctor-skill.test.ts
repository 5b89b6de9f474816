/**
 * 'bp skill' prints the skill files as they were when this executable was built; 'bp doctor'
 * reports what bp sees, each problem with a fix, and exits 1 only when something needs one.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BP, makeBpEnv } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { resultViolations } from "../support/result-check.ts";
import { findCommand } from "../../src/protocol/table.ts";

const chromium = requireChromium();

/** The reply against its command's published result schema, strictly (test/support/result-check.ts). */
async function violations(name: string, reply: unknown): Promise<string[]> {
  const def = await findCommand(name);
  if (!def) return [`no command ${name}`];
  return resultViolations(def.result, reply);
}
const root = join(import.meta.dir, "../..");
const env = makeBpEnv({ BROWSER_PILOT_CHROME: chromium });

afterAll(async () => {
  await env.cleanup();
});

type Check = { name: string; status: "ok" | "warn" | "fail"; detail: string; fix?: string };
const byName = (checks: Check[], name: string) => checks.find((c) => c.name === name);

describe("bp skill", () => {
  test("SKILL.md and each reference, byte for byte as committed; an unknown reference names the choices", async () => {
    const main = await env.run(["skill"]);
    expect(main.json).toMatchObject({ ok: true, name: "SKILL.md" });
    expect(await violations("skill", main.json)).toEqual([]);
    expect(main.json.content).toBe(readFileSync(join(root, "skill/SKILL.md"), "utf8"));
    for (const name of ["commands", "recovery"]) {
      const r = await env.run(["skill", "--reference", name]);
      expect(r.json).toMatchObject({ ok: true, name: `references/${name}.md` });
      expect(r.json.content).toBe(readFileSync(join(root, `skill/references/${name}.md`), "utf8"));
    }
    expect((await env.run(["skill", "--reference", "../SKILL"])).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "reference", choices: ["commands", "recovery"] },
    });
  });

  test("--human prints the Markdown itself", async () => {
    const r = await env.run(["skill", "--human"]);
    expect(r.stdout).toBe(`${readFileSync(join(root, "skill/SKILL.md"), "utf8")}\n`);
  });
});

describe("bp doctor", () => {
  test("a healthy setup: the browser and its version found, exit 0, and no broker started", async () => {
    const r = await env.run(["doctor"]);
    expect(r.code).toBe(0);
    const checks = r.json.checks as Check[];
    expect(r.json.ok).toBe(true);
    expect(await violations("doctor", r.json)).toEqual([]);
    const browser = byName(checks, "browser");
    expect(browser?.status).toBe("ok");
    expect(browser?.detail).toMatch(/Chrom/);
    expect(byName(checks, "broker")).toMatchObject({ status: "ok" });
    expect(byName(checks, "disk")?.status).toMatch(/ok|warn/);
    for (const c of checks) if (c.status !== "ok") expect(typeof c.fix).toBe("string");
    expect(env.brokerPid()).toBeUndefined();
  });

  test("a running broker is named; a state directory others can read and a broken browser are failures with fixes (exit 1)", async () => {
    expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
    const running = byName((await env.run(["doctor"])).json.checks as Check[], "broker");
    expect(running).toMatchObject({ status: "ok" });
    expect(running?.detail).toContain(`pid ${env.brokerPid()}`);
    // The same executable under another path (a reinstall, a rebuild) is another installation.
    const copy = join(env.home, "..", "bp-copy");
    copyFileSync(BP, copy);
    chmodSync(copy, 0o755);
    const other = Bun.spawnSync([copy, "doctor"], { env: env.env });
    const foreign = byName((JSON.parse(other.stdout.toString()) as { checks: Check[] }).checks, "broker");
    expect(foreign).toMatchObject({ status: "warn" });
    expect(foreign?.fix).toContain("disconnect");
    await env.stop();
    mkdirSync(env.home, { recursive: true });
    chmodSync(env.home, 0o755);
    // A browser that does not run (a broken install): found, but it cannot say its version.
    const broken = join(env.home, "..", "broken-chrome");
    writeFileSync(broken, "#!/bin/sh\nexit 3\n", { mode: 0o755 });
    const r = await env.run(["doctor"], { env: { BROWSER_PILOT_CHROME: broken } });
    expect(r.code).toBe(1);
    const checks = r.json.checks as Check[];
    expect(r.json.ok).toBe(false);
    expect(byName(checks, "state directory")).toMatchObject({ status: "fail", fix: `chmod 700 '${env.home}'` });
    expect(byName(checks, "browser")).toMatchObject({ status: "fail" });
    expect(byName(checks, "browser")?.fix).toContain("BROWSER_PILOT_CHROME");
    chmodSync(env.home, 0o700);
  });
});
