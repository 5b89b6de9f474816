/**
 * A command past its deadline replies at once, while its handler may still be touching the
 * tab. The handoff drain must wait for the handler itself, not for the reply. A real handler
 * cannot be made to overrun its deadline on demand, so this one ignores its signal on purpose.
 */
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { defineCommand } from "../../protocol/define.ts";
import type { CallRequest } from "../../protocol/wire.ts";
import { resolvePaths } from "../../shared/paths.ts";
import { Broker } from "../broker.ts";
import { defineHandler } from "../context/handler.ts";

test("a command that overran its deadline holds the tab's admission until its handler ends", async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const admitted = new Promise<void>((r) => (entered = r));
  const command = defineCommand({
    name: "overrun",
    group: "Reference",
    summary: "",
    args: v.object({}),
    result: v.object({}),
    example: "",
    runs: "broker",
  });
  const overrun = defineHandler(command)({
    run: async (ctx) => {
      ctx.broker.handoff.admit(ctx.req, "T", "t1");
      entered();
      await held;
      return {};
    },
  });
  const home = join(mkdtempSync(join(tmpdir(), "bp-admission-")), "home");
  const broker = new Broker(resolvePaths({ BROWSER_PILOT_HOME: home }), { overrun });
  const req: CallRequest = {
    op: "call",
    token: "t",
    protocol: 1,
    clientKey: "agent-a",
    command: "overrun",
    args: {},
    invocation: "inv-1",
    timeoutMs: 50,
    tabAccess: "all",
    mode: "json",
    executable: { version: "0", identity: "i" },
  };
  const reply = broker.call(req);
  await admitted;
  expect(await reply).toMatchObject({ ok: false, code: "command_expired" });
  expect(broker.handoff.inFlight("T")).toBe(true);
  release();
  // A macrotask runs after every microtask the handler's end schedules.
  await new Promise((r) => setImmediate(r));
  expect(broker.handoff.inFlight("T")).toBe(false);
});
