import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CommandDef } from "../../protocol/define.ts";
import { findCommand } from "../../protocol/table.ts";
import type { CallRequest } from "../../protocol/wire.ts";
import { BpError } from "../../shared/errors.ts";
import { recordBlock, withBlocks } from "./blocks.ts";
import { currentPolicy, isPolicyFile, policyHome, policyStatus, refreshPolicy } from "./current.ts";
import { admitCall } from "./enforce.ts";

const root = mkdtempSync(join(tmpdir(), "bp-policy-unit-"));
const home = join(root, "home");
mkdirSync(home, { mode: 0o700 });
const file = join(home, "policy.json");
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(p: unknown, mode = 0o600): void {
  writeFileSync(file, JSON.stringify(p));
  chmodSync(file, mode);
}
function call(command: string, args: Record<string, unknown>, key = "k1"): CallRequest {
  return {
    op: "call",
    token: "t",
    protocol: 1,
    clientKey: key,
    command,
    args,
    invocation: "i",
    timeoutMs: 1000,
    tabAccess: "all",
    mode: "json",
  };
}
async function def(name: string): Promise<CommandDef> {
  const d = await findCommand(name);
  if (!d) throw new Error(name);
  return d;
}
function refusal(fn: () => unknown): BpError {
  try {
    fn();
  } catch (err) {
    if (err instanceof BpError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("the policy in force", () => {
  test("no file allows everything; a file is read when it appears and again when it changes", async () => {
    policyHome(home);
    expect(await refreshPolicy()).toBe(false);
    expect(currentPolicy()).toBeUndefined();
    write({ deny: ["eval"] });
    const evalDef = await def("eval");
    expect(await refreshPolicy()).toBe(true);
    expect(await refreshPolicy()).toBe(false);
    expect(refusal(() => admitCall(call("eval", { expression: "1" }), evalDef))).toMatchObject({
      code: "policy_denied",
      retryable: false,
      context: { rule: "deny", entry: "eval" },
    });
    write({ deny: ["screenshot"], tabAccess: "own" });
    expect(await refreshPolicy()).toBe(true);
    expect(admitCall(call("eval", { expression: "1" }), await def("eval")).tabAccess).toBe("own");
    expect(policyStatus("k1")).toMatchObject({ deny: ["screenshot"], tabAccess: "own" });
  });

  test("options count only when given a value other than their default", async () => {
    write({ deny: ["cookies --values", "snapshot --limit"] });
    await refreshPolicy();
    const cookies = await def("cookies");
    expect(admitCall(call("cookies", { values: false }), cookies).command).toBe("cookies");
    expect(refusal(() => admitCall(call("cookies", { values: true }), cookies)).context?.entry).toBe(
      "cookies --values",
    );
    const snapshot = await def("snapshot");
    const limit = (snapshot.args as unknown as { entries: { limit: { default: number } } }).entries.limit.default;
    expect(admitCall(call("snapshot", { limit }), snapshot).command).toBe("snapshot");
    expect(refusal(() => admitCall(call("snapshot", { limit: 3 }), snapshot)).code).toBe("policy_denied");
  });

  test("group- or world-writable, broken, or a directory: every call fails closed", async () => {
    write({}, 0o620);
    await refreshPolicy();
    const tabs = await def("tabs");
    expect(refusal(() => admitCall(call("tabs", {}), tabs))).toMatchObject({
      code: "policy_invalid",
      context: { field: "mode" },
    });
    write({}, 0o602);
    await refreshPolicy();
    expect(refusal(() => currentPolicy()).context?.field).toBe("mode");
    writeFileSync(file, '{"deny": [');
    chmodSync(file, 0o600);
    await refreshPolicy();
    expect(refusal(() => currentPolicy()).context?.field).toBe("policy");
    rmSync(file);
    mkdirSync(file);
    await refreshPolicy();
    expect(refusal(() => currentPolicy()).code).toBe("policy_invalid");
    rmSync(file, { recursive: true });
    await refreshPolicy();
    expect(currentPolicy()).toBeUndefined();
  });

  test("uploads: the file's real path must lie in a listed directory", async () => {
    const up = join(root, "up");
    const out = join(root, "out");
    mkdirSync(up);
    mkdirSync(out);
    writeFileSync(join(up, "a.txt"), "a");
    writeFileSync(join(out, "b.txt"), "b");
    symlinkSync(join(out, "b.txt"), join(up, "link.txt"));
    write({ files: { uploadDirs: [up] } });
    await refreshPolicy();
    const upload = await def("upload");
    expect(admitCall(call("upload", { ref: "1", file: join(up, "a.txt") }), upload).command).toBe("upload");
    for (const f of [join(out, "b.txt"), join(up, "link.txt"), join(up, "..", "out", "b.txt")]) {
      expect(refusal(() => admitCall(call("upload", { ref: "1", file: f }), upload)).context?.rule).toBe(
        "files.uploadDirs",
      );
    }
  });

  test("the policy file is never an output path, also through a link to its directory", () => {
    const link = join(root, "h");
    symlinkSync(home, link);
    expect(isPolicyFile(file)).toBe(true);
    expect(isPolicyFile(join(link, "policy.json"))).toBe(true);
    expect(isPolicyFile(join(link, "other.json"))).toBe(false);
  });

  test("a reply lists what the policy stopped and no reply reported yet, at most 5", () => {
    expect(withBlocks({ ok: true }, "k9")).toEqual({ ok: true });
    for (let i = 0; i < 7; i++)
      recordBlock("k9", { kind: "request", url: `https://u:pw@x.test/${i}`, rule: "origins.deny", entry: "x.test" });
    const r = withBlocks({ ok: true }, "k9") as { policyBlocked: Record<string, unknown>[] };
    expect(r.policyBlocked).toHaveLength(6);
    expect(r.policyBlocked[0]).toEqual({
      kind: "request",
      url: "https://u:***@x.test/0",
      rule: "origins.deny",
      entry: "x.test",
    });
    expect(r.policyBlocked[5]).toEqual({ more: 2 });
    // Reported once.
    expect(withBlocks({ ok: true }, "k9")).toEqual({ ok: true });
    recordBlock("k9", { kind: "navigation", url: "https://x.test/", rule: "origins.deny" });
    expect(withBlocks({ ok: true }, "other")).toEqual({ ok: true });
    expect(withBlocks({ ok: false, code: "navigation_failed" }, "k9")).toMatchObject({
      code: "policy_denied",
      retryable: false,
      context: { rule: "origins.deny", url: "https://x.test/" },
    });
  });
});
