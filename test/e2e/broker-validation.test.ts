/**
 * The broker checks every call's arguments with the command's own schema, as the CLI does: a
 * client that writes to the socket directly is refused the same way, before anything happens.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeBpEnv } from "../support/bp.ts";

const env = makeBpEnv();
afterAll(() => env.cleanup());

function call(command: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { endpoint, token } = JSON.parse(readFileSync(join(env.home, "broker-locator.json"), "utf8")) as {
    token: string;
    endpoint: string;
  };
  const req = {
    op: "call",
    token,
    protocol: 1,
    clientKey: "raw-client",
    command,
    args,
    invocation: `i-${crypto.randomUUID()}`,
    timeoutMs: 5_000,
    tabAccess: "all",
    mode: "json",
  };
  return new Promise((resolve, reject) => {
    let buf = "";
    void Bun.connect({
      unix: endpoint,
      socket: {
        open: (s) => void s.write(`${JSON.stringify(req)}\n`),
        data: (_s, d) => void (buf += d.toString()),
        close: () => resolve(JSON.parse(buf.trim()) as Record<string, unknown>),
        error: (_s, e) => reject(e),
      },
    });
  });
}

describe("broker-side argument validation", () => {
  test("a raw launch with profile '../../x' is invalid_argument on profile, and nothing is launched or created", async () => {
    // Any broker command starts the broker (status only asks a live one).
    await env.run(["tabs"]);
    const r = await call("launch", { profile: "../../x", headless: true });
    expect(r).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "profile" } });
    expect(existsSync(join(dirname(env.home), "x"))).toBe(false);
    expect(existsSync(join(env.home, "profiles"))).toBe(false);
    const status = (await env.run(["status"])).json as { browser?: { state?: string } };
    expect(status.browser?.state).toBe("disconnected");
  });

  test("wrong types and out-of-range values are refused with the field; defaults are filled in", async () => {
    expect(await call("snapshot", { limit: "all" })).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "limit" },
    });
    expect(await call("click", { ref: -3 })).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "ref" },
    });
    // A valid call without the optional arguments reaches the command (here: no browser yet).
    expect(await call("snapshot", {})).toMatchObject({ ok: false, code: "browser_disconnected" });
  });
});
