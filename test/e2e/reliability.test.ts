import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { BP, browsersUnder, killAndWait, makeBpEnv, waitFor } from "../support/bp.ts";
import { PAGES, startFixtureServer } from "../support/fixture-server.ts";
import { readListing } from "../../src/protocol/elements.ts";

requireChromium();
const gates: (() => void)[] = [];
const env = makeBpEnv({ BROWSER_PILOT_NAV_STALL_MS: "1500" });
const site = startFixtureServer({
  ...PAGES,
  "/counter":
    '<!doctype html><title>Counter</title><button onclick="window.c=(window.c||0)+1">Increment</button><button onmousedown="event.preventDefault()">Nothing</button>',
  "/tall": "<!doctype html><title>Tall</title><div style='height:6000px'>Top</div><button onclick='1'>Bottom</button>",
  "/never": () => new Promise<Response>(() => undefined) as unknown as Response,
  "/hang": "<!doctype html><title>Hang</title><p>Loading forever</p><img src='/never'>",
  // Held open until the test lets it go: a request in flight for exactly as long as needed.
  "/gate": () => new Promise<Response>((r) => gates.push(() => r(new Response("open")))) as unknown as Response,
  "/delay": (url) =>
    new Promise<Response>((r) =>
      setTimeout(() => r(new Response("done")), Number(url.searchParams.get("ms") ?? 100)),
    ) as unknown as Response,
});
const A = "rel-agent-a";
const B = "rel-agent-b";

type Cmd = {
  id: string;
  method: string;
  status?: string;
  requestId?: string;
  cancellationRequested?: boolean;
  mutating?: true;
  deadlineAt?: string;
};

function spawnBp(args: string[], key: string) {
  const proc = Bun.spawn([BP, ...args], {
    env: { ...env.env, BROWSER_PILOT_CLIENT_KEY: key },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = new Response(proc.stdout).text();
  return {
    proc,
    async result() {
      const [stdout, code] = await Promise.all([out, proc.exited]);
      return {
        code,
        json: readListing(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as object) as Record<string, unknown> & {
          code?: string;
          context?: Record<string, unknown>;
        },
      };
    },
  };
}

/** Snapshot entries are compact ({r, n}); older builds spelled them out ({ref, name}). */
function refNamed(elements: unknown, name: string): number | undefined {
  const list = elements as { r?: number; ref?: number; n?: string; name?: string }[];
  const hit = list.find((e) => (e.n ?? e.name) === name);
  return hit?.r ?? hit?.ref;
}

async function commands(key: string, status?: string): Promise<Cmd[]> {
  const r = await env.run(["commands", "--limit", "100", ...(status ? ["--status", status] : [])], { key });
  expect(r.json.ok).toBe(true);
  return r.json.commands as Cmd[];
}

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await env.run(["open", `${site.a}/counter`, "--new"], { key: A })).json).toMatchObject({
    ok: true,
    tab: "t1",
  });
});

afterAll(async () => {
  await env.cleanup();
  for (const pid of browsersUnder(env.home)) await killAndWait(pid, "SIGKILL");
  site.stop();
});

describe("idempotency", () => {
  test("a double-submitted eval with one request id runs once; both replies are identical", async () => {
    const args = ["eval", "window.n=(window.n||0)+1", "--request-id", "rel-x"];
    const first = await env.run(args, { key: A });
    const second = await env.run(args, { key: A });
    expect(first.json).toMatchObject({ ok: true, value: 1 });
    expect(second.stdout).toBe(first.stdout);
    // Concurrent double submit: one waits for the other.
    const both = await Promise.all([
      env.run(["eval", "window.n=(window.n||0)+1", "--request-id", "rel-y"], { key: A }),
      env.run(["eval", "window.n=(window.n||0)+1", "--request-id", "rel-y"], { key: A }),
    ]);
    expect(both[0].stdout).toBe(both[1].stdout);
    expect((await env.run(["eval", "window.n"], { key: A })).json.value).toBe(2);
    const listed = (await commands(A)).filter((c) => c.requestId === "rel-x" || c.requestId === "rel-y");
    expect(listed).toHaveLength(2);
  });

  test("a double-submitted click runs once", async () => {
    const snap = await env.run(["snapshot"], { key: A });
    const ref = refNamed(snap.json.elements, "Increment");
    expect(ref).toBeDefined();
    const args = ["click", String(ref), "--request-id", "rel-click"];
    const first = await env.run(args, { key: A });
    const second = await env.run(args, { key: A });
    expect(first.json.ok).toBe(true);
    expect(second.stdout).toBe(first.stdout);
    expect((await env.run(["eval", "window.c"], { key: A })).json.value).toBe(1);
  });

  test("the same request id for another call is invalid_argument requestId", async () => {
    const r = await env.run(["eval", "2+2", "--request-id", "rel-x"], { key: A });
    expect(r.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "requestId" } });
    expect((await env.run(["eval", "window.n"], { key: A })).json.value).toBe(2);
  });
});

describe("records: bp commands, bp command, bp cancel", () => {
  test("records are listed per key; another key's ids do not exist for it", async () => {
    expect((await env.run(["tabs"], { key: A })).json.ok).toBe(true);
    const mine = await commands(A);
    const rec = mine.find((c) => c.requestId === "rel-x");
    expect(rec).toMatchObject({ method: "eval", mutating: true, status: "completed" });
    // Lean: a finished command's deadline is history, and a read says nothing about mutating.
    expect(rec?.deadlineAt).toBeUndefined();
    const read = mine.find((c) => c.method === "tabs");
    expect(read).toMatchObject({ status: "completed" });
    expect(read).not.toHaveProperty("mutating");
    const one = await env.run(["command", rec?.id ?? ""], { key: A });
    expect(one.json).toMatchObject({ ok: true, command: { id: rec?.id, status: "completed" }, result: { value: 1 } });
    const other = await env.run(["command", rec?.id ?? ""], { key: B });
    const missing = await env.run(["command", "c000000000000"], { key: B });
    expect(other.json).toMatchObject({ ok: false, code: "invalid_argument", context: { field: "id" } });
    expect(String(other.json.error).replace(rec?.id ?? "", "ID")).toBe(
      String(missing.json.error).replace("c000000000000", "ID"),
    );
    expect((await env.run(["cancel", rec?.id ?? ""], { key: B })).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "id" },
    });
    expect((await commands(B)).some((c) => c.id === rec?.id)).toBe(false);
    expect((await env.run(["commands", "--status", "bogus"], { key: A })).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "status" },
    });
    const human = await env.run(["commands", "--limit", "2", "--human"], { key: A });
    expect(human.stdout).toMatch(/^c[0-9a-f]{12} {2}completed +\w+/);
  });

  test("SIGINT cancels the running command: exit 130, recorded, the page stays usable", async () => {
    const run = spawnBp(["eval", "new Promise(r=>setTimeout(r,20000))"], A);
    await Bun.sleep(300);
    run.proc.kill("SIGINT");
    const { code, json } = await run.result();
    expect(code).toBe(130);
    expect(json).toMatchObject({ ok: false, code: "command_cancelled" });
    const id = json.context?.commandId as string;
    const rec = (await commands(A)).find((c) => c.id === id);
    expect(["cancelled", "unknown_outcome"]).toContain(rec?.status ?? "");
    expect(json.context?.status).toBe(rec?.status);
    const started = Date.now();
    expect((await env.run(["eval", "1+1"], { key: A })).json.value).toBe(2);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test("SIGTERM exits 143", async () => {
    const run = spawnBp(["eval", "new Promise(r=>setTimeout(r,20000))"], A);
    await Bun.sleep(300);
    run.proc.kill("SIGTERM");
    expect((await run.result()).code).toBe(143);
  });

  test("bp cancel: a queued command is cancelled before dispatch and never runs", async () => {
    const long = spawnBp(["eval", "new Promise(r=>setTimeout(r,20000))"], A);
    const first = (await waitFor(
      async () => (await commands(A, "dispatched"))[0],
      5000,
      "long eval dispatched",
    )) as Cmd;
    const queued = spawnBp(["eval", "window.m = 1"], A);
    const second = (await waitFor(async () => (await commands(A, "accepted"))[0], 5000, "second eval queued")) as Cmd;
    // A command still waiting or running names its deadline.
    expect(typeof second.deadlineAt).toBe("string");
    // The one status asked for is not repeated on each record; with several, each says its own.
    expect(second).not.toHaveProperty("status");
    const both = (await env.run(["commands", "--status", "accepted,dispatched"], { key: A })).json.commands as Cmd[];
    expect(both.find((c) => c.id === second.id)).toMatchObject({ status: "accepted" });
    expect(both.find((c) => c.id === first.id)).toMatchObject({ status: "dispatched" });
    const cancelled = await env.run(["cancel", second.id], { key: A });
    expect(cancelled.json).toMatchObject({
      ok: true,
      command: { id: second.id, status: "cancelled" },
      error: { code: "command_cancelled" },
    });
    // Lean: the stored error does not name the command its record stands next to.
    expect(cancelled.json.error).not.toHaveProperty("context");
    expect((await queued.result()).json).toMatchObject({ ok: false, code: "command_cancelled" });
    const best = await env.run(["cancel", first.id], { key: A });
    expect(best.json).toMatchObject({ ok: true, command: { id: first.id, cancellationRequested: true } });
    // The reply on its own names its command and the cancellation; the record's copy leaves that to the record.
    expect((await long.result()).json).toMatchObject({
      ok: false,
      code: "unknown_outcome",
      context: { commandId: first.id, cancellationRequested: true },
    });
    const record = (await env.run(["command", first.id], { key: A })).json;
    expect(record).toMatchObject({
      command: { status: "unknown_outcome", cancellationRequested: true },
      error: { code: "unknown_outcome", context: { cause: expect.any(String) } },
    });
    expect(Object.keys((record.error as { context: object }).context)).toEqual(["cause"]);
    expect((await env.run(["eval", "typeof window.m"], { key: A })).json.value).toBe("undefined");
    expect((await env.run(["cancel", first.id], { key: A })).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
    });
  });

  test("a mutating command past its deadline after dispatch is unknown_outcome, not replayed", async () => {
    const r = await env.run(
      ["eval", "new Promise(r=>setTimeout(r,5000))", "--timeout", "500", "--request-id", "rel-slow"],
      { key: A },
    );
    expect(r.json).toMatchObject({ ok: false, code: "unknown_outcome", context: { cause: "deadline" } });
    const again = await env.run(
      ["eval", "new Promise(r=>setTimeout(r,5000))", "--timeout", "500", "--request-id", "rel-slow"],
      { key: A },
    );
    expect(again.stdout).toBe(r.stdout);
  });
});

describe("bp wait", () => {
  test("exactly one condition", async () => {
    expect((await env.run(["wait"], { key: A })).json).toMatchObject({ ok: false, code: "invalid_argument" });
    expect((await env.run(["wait", "--dialog", "--popup"], { key: A })).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
    });
  });

  test("url, text and selector", async () => {
    await env.run(["eval", "setTimeout(()=>{location.href='/second'},300); 1"], { key: A });
    const url = await env.run(["wait", "--url", "*/SECOND"], { key: A });
    expect(url.json).toMatchObject({ ok: true, matched: { url: `${site.a}/second` } });
    // Lean: the condition is the agent's own flag, not repeated.
    expect(url.json.condition).toBeUndefined();
    // The text appears only once the wait is running (not after a guessed delay): it must be
    // found by the wait's own checks, not by a first look at a page that already had it.
    const waiting = spawnBp(["wait", "--text", "order placed"], A);
    await waitFor(
      async () => (await commands(A, "dispatched")).some((c) => c.method === "wait"),
      10_000,
      "wait running",
    );
    expect(waiting.proc.exitCode).toBeNull();
    await env.run(["eval", "document.body.insertAdjacentHTML('beforeend','<p id=late>Order   Placed</p>'); 1"], {
      key: A,
    });
    const text = await waiting.result();
    expect(text.json).toMatchObject({ ok: true, matched: { context: expect.stringContaining("Order Placed") } });
    // The top document is frame 0: not named.
    expect(text.json.matched).not.toHaveProperty("frame");
    const sel = await env.run(["wait", "--selector", "p#late"], { key: A });
    // Visible is the condition itself: only visible:false (with --attached) is said.
    expect(sel.json).toEqual({ ok: true, elapsedMs: expect.any(Number), matched: { tagName: "p" } });
    expect((await env.run(["wait", "--selector", "p[[["], { key: A })).json).toMatchObject({
      ok: false,
      code: "invalid_argument",
      context: { field: "selector" },
    });
  });

  test("expiry is wait_timeout with condition and timeoutMs", async () => {
    const r = await env.run(["wait", "--text", "never there", "--timeout", "700"], { key: A });
    expect(r.json).toMatchObject({
      ok: false,
      code: "wait_timeout",
      retryable: true,
      context: { condition: "text", timeoutMs: 700 },
    });
  });

  test("a page too busy to answer still ends in wait_timeout at the deadline, not command_expired", async () => {
    // The page's main thread is blocked: the wait's page checks get no answer before the end.
    await env.run(["eval", "setTimeout(()=>{const t=Date.now(); while(Date.now()-t<3000);},50); 1"], { key: A });
    const r = await env.run(["wait", "--text", "never there", "--timeout", "700"], { key: A });
    expect(r.json).toMatchObject({ ok: false, code: "wait_timeout", context: { condition: "text", timeoutMs: 700 } });
    expect((await env.run(["eval", "1"], { key: A })).json.ok).toBe(true);
  });

  test("network idle waits for requests in flight", async () => {
    // A request held open by the server until the wait is known to be running.
    await env.run(["eval", "fetch('/gate'); 1"], { key: A });
    await waitFor(() => gates.length > 0, 10_000, "request in flight");
    const waiting = spawnBp(["wait", "--network-idle"], A);
    await waitFor(
      async () => (await commands(A, "dispatched")).some((c) => c.method === "wait"),
      10_000,
      "wait running",
    );
    expect(waiting.proc.exitCode).toBeNull();
    for (const open of gates.splice(0)) open();
    const r = await waiting.result();
    // Idle means quiet for NETWORK_IDLE_MS after the last request ended, which was after the start.
    expect(r.json.elapsedMs as number).toBeGreaterThanOrEqual(500);
    // Nothing matched beyond the condition: the reply is the time it took.
    expect(Object.keys(r.json).sort()).toEqual(["elapsedMs", "ok"]);
  });

  test("dialog and popup", async () => {
    await env.run(["eval", "setTimeout(()=>alert('hello'),200); 1"], { key: A });
    const d = await env.run(["wait", "--dialog"], { key: A });
    expect(d.json).toMatchObject({ ok: true, matched: { type: "alert", message: "hello" } });
    const id = (d.json.matched as { dialog: string }).dialog;
    expect((await env.run(["dialog", id, "--accept"], { key: A })).json.ok).toBe(true);
    await env.run(["open", `${site.a}/popup`], { key: A });
    await env.run(["eval", "document.getElementById('b').click(); 1"], { key: A });
    const p = await env.run(["wait", "--popup"], { key: A });
    expect(p.json.ok).toBe(true);
    expect(typeof (p.json.matched as { tab?: unknown }).tab).toBe("string");
    // Close the popup again: a focused popup throttles its background opener.
    await env.run(["tab", String((p.json.matched as { tab: string }).tab)], { key: A });
    expect((await env.run(["close"], { key: A })).json.ok).toBe(true);
    expect((await env.run(["tab", "t1"], { key: A })).json.ok).toBe(true);
  });

  test("never opens a tab: no selected tab is no_selected_tab", async () => {
    const key = "rel-agent-c";
    const before = (await env.run(["tabs"], { key })).json.tabs as unknown[];
    expect((await env.run(["wait", "--text", "x"], { key })).json).toMatchObject({
      ok: false,
      code: "no_selected_tab",
    });
    expect(((await env.run(["tabs"], { key })).json.tabs as unknown[]).length).toBe(before.length);
  });
});

describe("watchdogs", () => {
  test("actions with no observable progress get a repeated_action hint", async () => {
    await env.run(["open", `${site.a}/counter`], { key: A });
    const snap = await env.run(["snapshot"], { key: A });
    const ref = refNamed(snap.json.elements, "Nothing");
    expect(ref).toBeDefined();
    let last: Record<string, unknown> = {};
    for (let i = 0; i < 4; i++) last = (await env.run(["click", String(ref)], { key: A })).json;
    expect(last).toMatchObject({ ok: true });
    expect(last.hints).toContainEqual(expect.objectContaining({ type: "repeated_action", tab: "t1" }));
    // Re-observing resets it.
    await env.run(["snapshot"], { key: A });
    const after = (await env.run(["click", String(ref)], { key: A })).json;
    expect(((after.hints as { type: string }[] | undefined) ?? []).some((h) => h.type === "repeated_action")).toBe(
      false,
    );
    // So does a navigation's look (reload --snapshot): the agent saw the whole page.
    for (let i = 0; i < 3; i++) await env.run(["click", String(ref)], { key: A });
    const looked = await env.run(["reload", "--snapshot"], { key: A });
    const again = refNamed(looked.json.elements, "Nothing");
    expect(again).toBeDefined();
    const next = (await env.run(["click", String(again)], { key: A })).json;
    expect(next.ok).toBe(true);
    expect(((next.hints as { type: string }[] | undefined) ?? []).some((h) => h.type === "repeated_action")).toBe(
      false,
    );
  });

  test("scrolls that moved the page and dialog answers are progress: no repeated_action", async () => {
    await env.run(["open", `${site.a}/tall`], { key: A });
    for (let i = 0; i < 4; i++) {
      const r = (await env.run(["scroll", "down"], { key: A })).json;
      expect(r.ok).toBe(true);
      expect((r.evidence as { deltaY?: number }).deltaY).toBeGreaterThan(0);
      expect(((r.hints as { type: string }[] | undefined) ?? []).map((h) => h.type)).not.toContain("repeated_action");
    }
    for (let i = 0; i < 3; i++) {
      await env.run(["eval", "setTimeout(() => alert('Hi'), 50); 1"], { key: A });
      const id =
        ((await env.run(["wait", "--dialog"], { key: A })).json.dialog as { id: string } | undefined)?.id ??
        ((await env.run(["dialogs"], { key: A })).json.dialogs as { id: string }[])[0]?.id;
      const r = (await env.run(["dialog", String(id), "--accept"], { key: A })).json;
      expect(r.ok).toBe(true);
      expect(((r.hints as { type: string }[] | undefined) ?? []).map((h) => h.type)).not.toContain("repeated_action");
    }
  });

  test("an unanswered dialog is named on results for the agent's other tabs", async () => {
    await env.run(["eval", "setTimeout(()=>confirm('Leave?'),100); 1"], { key: A });
    await env.run(["wait", "--dialog"], { key: A });
    const other = await env.run(["open", `${site.a}/second`, "--new"], { key: A });
    expect(other.json.ok).toBe(true);
    const r = await env.run(["eval", "1"], { key: A });
    expect(r.json.hints).toContainEqual(
      expect.objectContaining({ type: "dialog_pending", tab: "t1", dialogType: "confirm" }),
    );
    await env.run(["tab", "t1"], { key: A });
    const dialogs = (await env.run(["dialogs"], { key: A })).json.dialogs as { id: string }[];
    for (const d of dialogs) await env.run(["dialog", d.id, "--dismiss"], { key: A });
  });

  test("a navigation that keeps loading is reported as stalled", async () => {
    const opened = await env.run(["open", `${site.a}/hang`], { key: A });
    expect(opened.json.ok).toBe(true);
    await Bun.sleep(1600);
    const r = await env.run(["eval", "document.title"], { key: A });
    expect(r.json.hints).toContainEqual(expect.objectContaining({ type: "navigation_stalled", tab: "t1" }));
  });
});

describe("loss after dispatch", () => {
  test("browser loss during a mutating command is unknown_outcome", async () => {
    await env.run(["open", `${site.a}/`], { key: A });
    const run = spawnBp(["eval", "new Promise(r=>setTimeout(r,20000))"], A);
    await waitFor(async () => (await commands(A, "dispatched")).length > 0, 5000, "dispatched");
    for (const pid of browsersUnder(env.home)) await killAndWait(pid, "SIGKILL");
    expect((await run.result()).json).toMatchObject({ ok: false, code: "unknown_outcome" });
  });

  test("broker loss during a mutating command is unknown_outcome", async () => {
    expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
    expect((await env.run(["open", `${site.a}/`, "--new"], { key: A })).json.ok).toBe(true);
    const run = spawnBp(["eval", "new Promise(r=>setTimeout(r,20000))"], A);
    await waitFor(async () => (await commands(A, "dispatched")).length > 0, 5000, "dispatched");
    await killAndWait(env.brokerPid() ?? 0, "SIGKILL");
    expect((await run.result()).json).toMatchObject({
      ok: false,
      code: "unknown_outcome",
      context: { reason: "broker_lost" },
    });
  });
});
