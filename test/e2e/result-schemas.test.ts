// Every reply an agent gets must match the result schema `bp schema <command>` publishes:
// no field it does not name, none of the wrong type. One session through the everyday
// commands, each reply checked strictly.
import { afterAll, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { resultViolations } from "../support/result-check.ts";
import { findCommand, matchCommandName } from "../../src/protocol/table.ts";
import { BpError } from "../../src/shared/errors.ts";

requireChromium();
const site = startFixtureServer();
const env = makeBpEnv();
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

const page = (html: string) => `${site.a}/echo?html=${encodeURIComponent(html)}`;
const FORM = page(
  "<title>F</title><label><input type=checkbox> Remember me</label><input id=q aria-label=Query>" +
    "<select aria-label=Color><option>Red</option><option>Blue</option></select>" +
    "<button onclick=\"document.title='Done'\">Go</button><a href='/second'>Next</a><p>Total 42</p>",
);

test("every reply of an everyday session matches its command's published result schema", async () => {
  const steps: string[][] = [
    ["status"],
    ["launch", "--headless"],
    ["status"],
    ["open", FORM, "--new"],
    ["tabs"],
    ["snapshot"],
    ["snapshot", "--diff"],
    ["click", "1"],
    ["type", "2", "hello"],
    ["select", "3", "Blue"],
    ["dropdown", "3"],
    ["press", "Tab"],
    ["hover", "4"],
    ["click", "4"],
    ["scroll", "down"],
    ["eval", "document.title"],
    ["eval", "undefined"],
    ["read"],
    ["search", "Total"],
    ["find", "button"],
    ["locate", "#q"],
    ["wait", "--text", "Total"],
    ["wait", "--selector", "#q"],
    ["wait", "--network-idle"],
    ["commands"],
    ["dialogs"],
    ["cookies"],
    ["net"],
    ["net", "show", "1"],
    ["profiles"],
    ["click", "5"],
    ["back"],
    ["forward"],
    ["reload"],
    ["frame"],
    ["frame", "0"],
    ["net", "block", "*/ads/*"],
    ["net", "mock", "*/api/*", "--body", "{}", "--header", "Content-Type: application/json"],
    ["net", "rules"],
    ["net", "remove", "--all"],
    ["downloads"],
    ["tab", "release"],
    ["tab", "t1"],
    ["close"],
    ["disconnect"],
  ];
  const problems: string[] = [];
  for (const argv of steps) {
    const r = await env.run(argv);
    const name = matchCommandName(argv)?.name ?? argv[0] ?? "";
    expect({ argv, ok: r.json.ok, code: r.json.code }).toMatchObject({ ok: true });
    const def = await findCommand(name);
    expect(def).toBeDefined();
    for (const p of resultViolations(def?.result ?? ({} as never), r.json)) problems.push(`bp ${argv.join(" ")}: ${p}`);
  }
  expect(problems).toEqual([]);
});

test("the check itself catches a field the schema does not name, a wrong type and a missing field", async () => {
  const click = await findCommand("click");
  expect(resultViolations(click?.result ?? ({} as never), { ok: true, evidence: { status: "verified" }, page: { vw: 1 } })).toEqual([
    "$.page: not in the published schema",
  ]);
  const tabs = await findCommand("tabs");
  expect(resultViolations(tabs?.result ?? ({} as never), { ok: true, tabs: "t1" })).toEqual(["$.tabs: array expected"]);
  expect(resultViolations(tabs?.result ?? ({} as never), {}).length).toBeGreaterThan(0);
});

test("a stored error reply, remediation included, matches what command and cancel publish", async () => {
  const { ok: _ok, ...error } = new BpError("browser_disconnected", "No browser is connected.", {
    retryable: true,
    hint: "Run 'bp connect' first.",
    context: { reason: "connection_lost" },
    remediation: { code: "connect_browser", message: "Run 'bp connect'.", actionRequired: true },
  }).toJSON();
  const stamp = new Date(0).toISOString();
  const reply = { ok: true, command: { id: "c0123456789ab", method: "snapshot", status: "completed", acceptedAt: stamp }, error };
  for (const name of ["command", "cancel"]) {
    const def = await findCommand(name);
    expect(resultViolations(def?.result ?? ({} as never), reply)).toEqual([]);
  }
});
