/**
 * 'bp batch': lines from stdin run in order over one broker connection, each as its own
 * call (its reply, its request id and guards), stopping at the first failure unless
 * --continue; a malformed line runs nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KeptConnection } from "../../src/cli/kept-connection.ts";
import { PROTOCOL } from "../../src/shared/version.ts";
import { alive, makeBpEnv, refNamed, waitFor } from "../support/bp.ts";
import { requireChromium } from "../support/chromium.ts";
import { resultViolations } from "../support/result-check.ts";
import { findCommand } from "../../src/protocol/table.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

/** The reply against its command's published result schema, strictly (test/support/result-check.ts). */
async function violations(name: string, reply: unknown): Promise<string[]> {
  const def = await findCommand(name);
  if (!def) return [`no command ${name}`];
  return resultViolations(def.result, reply);
}

const COUNTER = `<!doctype html><title>Counter</title><button id=b onclick="this.dataset.n=(+(this.dataset.n||0)+1);document.getElementById('out').textContent=this.dataset.n">Add</button><input aria-label=Name><p id=out>0</p>`;
const site = startFixtureServer({ "/counter": COUNTER });
const env = makeBpEnv();
const K = "batch-agent";
const run = (args: string[], stdin?: string) => env.run(args, { key: K, ...(stdin !== undefined ? { stdin } : {}) });
type Results = { ok: boolean; results: Record<string, unknown>[] };

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
});

afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("bp batch", () => {
  test("shell-word and JSON-array lines run in order, one reply with each step's own", async () => {
    const script = [
      `open ${site.a}/counter --new`,
      "# a comment, and a blank line",
      "",
      `["eval", "document.title"]`,
      `bp eval 'document.querySelector("#out").textContent'`,
    ].join("\n");
    const r = await run(["batch"], script);
    expect(r.code).toBe(0);
    const out = r.json as unknown as Results;
    expect(out.ok).toBe(true);
    expect(out.results).toHaveLength(3);
    expect(out.results[0]).toMatchObject({ ok: true, title: "Counter" });
    expect(out.results[1]).toEqual({ ok: true, value: "Counter" });
    expect(out.results[2]).toEqual({ ok: true, value: "0" });
    expect(await violations("batch", r.json)).toEqual([]);
  });

  test("refs from an earlier step work in a later one, and actions verify as they do alone", async () => {
    const add = await refNamed((a) => run(a), "Add");
    const name = await refNamed((a) => run(a), "Name");
    const r = await run(
      ["batch"],
      `click ${add}\ntype ${name} "Ada Lovelace"\neval 'document.querySelector("input").value + "/" + document.querySelector("#out").textContent'\n`,
    );
    const out = r.json as unknown as Results;
    expect(out.ok).toBe(true);
    expect((out.results[0] as { evidence: { status: string } }).evidence.status).toBe("verified");
    expect(out.results[2]).toEqual({ ok: true, value: "Ada Lovelace/1" });
  });

  test("stops at the first failure (exit 1); --continue runs past it", async () => {
    const stop = await run(["batch"], "eval 1\nclick 9999\neval 2\n");
    expect(stop.code).toBe(1);
    const a = stop.json as unknown as Results;
    expect(a.ok).toBe(false);
    expect(a.results).toHaveLength(2);
    expect(a.results[1]).toMatchObject({ ok: false, code: "stale_ref" });
    const cont = await run(["batch", "--continue"], "eval 1\nclick 9999\neval 2\n");
    expect(cont.code).toBe(1);
    const b = cont.json as unknown as Results;
    expect(b.ok).toBe(false);
    expect(b.results.map((x) => x.ok)).toEqual([true, false, true]);
  });

  test("a retried batch with the same --request-id replays its mutating steps instead of acting twice", async () => {
    const add = await refNamed((a) => run(a), "Add");
    const before = Number((await run(["eval", "document.querySelector('#out').textContent"])).json.value);
    const first = await run(["batch", "--request-id", "batch-retry-1"], `click ${add}\n`);
    expect((first.json as unknown as Results).ok).toBe(true);
    const again = await run(["batch", "--request-id", "batch-retry-1"], `click ${add}\n`);
    expect((again.json as unknown as Results).results[0]).toEqual((first.json as unknown as Results).results[0]);
    const after = Number((await run(["eval", "document.querySelector('#out').textContent"])).json.value);
    expect(after).toBe(before + 1);
  });

  test("guards hold inside a batch: another agent's tab is target_busy and the batch stops there", async () => {
    expect((await env.run(["open", `${site.a}/counter?other`, "--new"], { key: "batch-other" })).json.ok).toBe(true);
    const tabs = (await run(["tabs"])).json.tabs as { id: string; url: string }[];
    const theirs = tabs.find((t) => t.url.endsWith("?other"));
    expect(theirs).toBeDefined();
    const r = await run(["batch"], `tab ${theirs?.id}\neval 'document.title = "taken"'\n`);
    const out = r.json as unknown as Results;
    expect(out.ok).toBe(false);
    expect(out.results).toHaveLength(1);
    expect(out.results[0]).toMatchObject({ ok: false, code: "target_busy" });
    expect((await env.run(["eval", "document.title"], { key: "batch-other" })).json.value).toBe("Counter");
  });

  test("a malformed line runs nothing and names its line with a stable code", async () => {
    const marker = `document.title = "touched"`;
    const cases: [string, Record<string, unknown>][] = [
      [`eval '${marker}'\nclick "unterminated\n`, { field: "batch", line: 2, parserCode: "bad_quoting" }],
      [`eval '${marker}'\n["eval",\n`, { field: "batch", line: 2, parserCode: "bad_json" }],
      [`eval '${marker}'\n[1, {"a": 2}]\n`, { field: "batch", line: 2, parserCode: "bad_json" }],
      [`eval '${marker}'\nfrobnicate now\n`, { field: "command", line: 2, parserCode: "unknown_command" }],
      [`eval '${marker}'\nclick abc\n`, { field: "ref", line: 2 }],
      [`eval '${marker}'\nbatch\n`, { field: "command", line: 2 }],
      [`eval '${marker}'\nauth alice --password-stdin\n`, { field: "password", line: 2 }],
      [`eval '${marker}'\neval\n`, { field: "expression", line: 2 }],
      ["", { field: "batch", parserCode: "empty_batch" }],
    ];
    for (const [script, context] of cases) {
      const r = await run(["batch"], script);
      expect(r.code).toBe(1);
      expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context });
    }
    expect((await run(["eval", "document.title"])).json).toEqual({ ok: true, value: "Counter" });
    const many = Array.from({ length: 101 }, () => "eval 1").join("\n");
    expect((await run(["batch"], many)).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { parserCode: "too_many_steps" },
    });
  });

  test("a batch that ends with disconnect stops the broker as a lone disconnect would", async () => {
    const pid = env.brokerPid();
    const scratch = makeBpEnv();
    try {
      expect((await scratch.run(["launch", "--headless"], { key: K })).json.ok).toBe(true);
      const broker = scratch.brokerPid();
      const r = await scratch.run(["batch"], { key: K, stdin: "tabs\ndisconnect\n" });
      expect((r.json as unknown as Results).results[1]).toMatchObject({ ok: true, brokerStopped: true });
      await waitFor(() => (broker !== undefined && !alive(broker)) || undefined, 10_000, "broker exit");
    } finally {
      await scratch.cleanup();
    }
    expect(env.brokerPid()).toBe(pid);
  });

  test("the broker answers many calls on one kept connection, as a batch sends them", async () => {
    const locator = JSON.parse(readFileSync(join(env.home, "broker-locator.json"), "utf8")) as {
      endpoint: string;
      token: string;
    };
    const conn = await KeptConnection.open(locator.endpoint, 5_000);
    try {
      const call = (expression: string) => ({
        op: "call" as const,
        token: locator.token,
        protocol: PROTOCOL.version,
        clientKey: K,
        command: "eval",
        args: { expression },
        invocation: crypto.randomUUID(),
        timeoutMs: 10_000,
        tabAccess: "all" as const,
        mode: "json" as const,
      });
      expect(await conn.call(call("1 + 1"), 15_000)).toEqual({ ok: true, value: 2 });
      expect(await conn.call(call("document.title"), 15_000)).toEqual({ ok: true, value: "Counter" });
      expect(await conn.call(call("3"), 15_000)).toEqual({ ok: true, value: 3 });
    } finally {
      conn.close();
    }
  });

  test("lines sent together on a kept connection are answered in order; a call without keep ends it", async () => {
    const locator = JSON.parse(readFileSync(join(env.home, "broker-locator.json"), "utf8")) as {
      endpoint: string;
      token: string;
    };
    const line = (expression: string, keep: boolean) =>
      `${JSON.stringify({ op: "call", token: locator.token, protocol: PROTOCOL.version, clientKey: K, command: "eval", args: { expression }, invocation: crypto.randomUUID(), timeoutMs: 10_000, tabAccess: "all", mode: "json", ...(keep ? { keep: true } : {}) })}\n`;
    let text = "";
    const closed = Promise.withResolvers<void>();
    const sock = await Bun.connect({
      unix: locator.endpoint,
      socket: {
        data: (_s, d) => void (text += new TextDecoder().decode(d)),
        close: () => closed.resolve(),
        error: () => closed.resolve(),
      },
    });
    sock.write(line("10", true) + line("20", false) + line("30", true));
    await Promise.race([closed.promise, Bun.sleep(15_000)]);
    // The third line came after a call that did not ask to keep the connection: never read.
    expect(
      text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { ok: true, value: 10 },
      { ok: true, value: 20 },
    ]);
  });
});
