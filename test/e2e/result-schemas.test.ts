// Every reply an agent gets must match the result schema `bp schema <command>` publishes:
// no field it does not name, none of the wrong type. One session through the everyday
// commands, each reply checked strictly.
import { afterAll, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, waitFor } from "../support/bp.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";
import { resultViolations } from "../support/result-check.ts";
import { allCommands, findCommand, matchCommandName } from "../../src/protocol/table.ts";
import type { AnySchema } from "../../src/protocol/define.ts";
import { BpError } from "../../src/shared/errors.ts";

requireChromium();
const site = startFixtureServer({
  ...PAGES,
  // A page whose load never ends (its image never answers): a stalled navigation.
  "/never": () => new Promise<Response>(() => undefined) as unknown as Response,
  "/hang": "<!doctype html><title>Hang</title><p>Loading forever</p><img src='/never'>",
});
const env = makeBpEnv();
// Its own home and browser, with a short stall limit so navigation_stalled comes within the test.
const hintsEnv = makeBpEnv({ BROWSER_PILOT_NAV_STALL_MS: "300" });
afterAll(async () => {
  await env.cleanup();
  await hintsEnv.cleanup();
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
    ["commands", "--status", "completed"],
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

/** The object schemas a result can be (the branches of a union, such as net show's). */
function branches(schema: AnySchema): { entries: Record<string, unknown> }[] {
  const node = schema as unknown as { type: string; entries?: Record<string, unknown>; options?: AnySchema[] };
  if (node.type === "union") return (node.options ?? []).flatMap(branches);
  return node.entries ? [{ entries: node.entries }] : [];
}

test("watchdog hints: every command with a record names them in its result schema, and no other does", async () => {
  const wrong: string[] = [];
  for (const def of await allCommands()) {
    // status has no record, but says when the broker is another build or started with another HOME.
    const recorded = def.runs !== "local" && (def.recorded !== false || def.name === "status");
    for (const b of branches(def.result))
      if ("hints" in b.entries !== recorded)
        wrong.push(`${def.name}: ${recorded ? "no hints" : "hints it never gets"}`);
  }
  expect(wrong).toEqual([]);
});

test("replies that carry watchdog hints match their published schemas (a dialog on another tab, a stalled load)", async () => {
  const problems: string[] = [];
  const check = async (argv: string[]) => {
    const r = await hintsEnv.run(argv);
    expect({ argv, ok: r.json.ok, code: r.json.code }).toMatchObject({ ok: true });
    const def = await findCommand(matchCommandName(argv)?.name ?? "");
    for (const p of resultViolations(def?.result ?? ({} as never), r.json)) problems.push(`bp ${argv.join(" ")}: ${p}`);
    return r.json as Record<string, unknown> & { hints?: { type: string }[] };
  };
  const hinted = (reply: { hints?: { type: string }[] }, type: string) =>
    (reply.hints ?? []).some((h) => h.type === type);
  await check(["launch", "--headless"]);
  await check(["open", FORM, "--new"]);
  await check(["eval", "setTimeout(() => alert('Saved'), 50); 1"]);
  await check(["wait", "--dialog"]);
  await check(["open", page("<title>B</title><button>Go</button><p>Second tab</p>"), "--new"]);
  // Every command on the other tab hears of the dialog; those without a record (status,
  // commands) never carry hints.
  for (const argv of [
    ["tabs"],
    ["eval", "1"],
    ["snapshot"],
    ["read"],
    ["find", "button"],
    ["search", "Second"],
    ["locate", "button"],
    ["wait", "--text", "Second"],
    ["net"],
    ["cookies"],
    ["frame"],
    ["profiles"],
    ["downloads"],
    ["net", "rules"],
    ["hover", "1"],
  ]) {
    const reply = await check(argv);
    if (!hinted(reply, "dialog_pending")) problems.push(`bp ${argv.join(" ")}: no dialog_pending hint`);
  }
  // Lean: it rides on every reply while the dialog waits, so nothing but what answers it.
  expect((await check(["tabs"])).hints as unknown[]).toEqual([
    {
      type: "dialog_pending",
      tab: "t1",
      dialog: expect.stringMatching(/^d\d+$/),
      dialogType: "alert",
      message: expect.stringMatching(
        /^t1 waits on an unanswered alert \("Saved"\): bp dialog d\d+ --accept or --dismiss$/,
      ),
    },
  ]);
  for (const argv of [["status"], ["commands"]]) expect((await check(argv)).hints).toBeUndefined();
  // The text form shows them too, after the command's own lines.
  expect((await hintsEnv.run(["--human", "tabs"])).stdout).toMatch(
    /\nhint: t1 waits on an unanswered alert \("Saved"\): bp dialog d\d+ --accept or --dismiss/,
  );
  await check(["open", `${site.a}/hang`]);
  await waitFor(
    async () => hinted(await check(["tabs"]), "navigation_stalled") || undefined,
    10_000,
    "a navigation_stalled hint",
  );
  await check(["tab", "t1"]);
  const dialogs = (await check(["dialogs"])).dialogs as { id: string }[];
  for (const d of dialogs) await check(["dialog", d.id, "--dismiss"]);
  await check(["disconnect"]);
  expect(problems).toEqual([]);
});

test("the check itself catches a field the schema does not name, a wrong type and a missing field", async () => {
  const click = await findCommand("click");
  expect(
    resultViolations(click?.result ?? ({} as never), { ok: true, evidence: { status: "verified" }, page: { vw: 1 } }),
  ).toEqual(["$.page: not in the published schema"]);
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
  const reply = {
    ok: true,
    command: { id: "c0123456789ab", method: "snapshot", status: "completed", acceptedAt: stamp },
    error,
  };
  for (const name of ["command", "cancel"]) {
    const def = await findCommand(name);
    expect(resultViolations(def?.result ?? ({} as never), reply)).toEqual([]);
  }
});
