/**
 * bp against the real React 19 (test/e2e/react-pages.ts): controlled inputs, a checkbox React
 * puts back, a select, a form that adds rows, a debounced search, a portal dialog and a save
 * that answers after a request, driven as an agent would: refs from snapshots and replies,
 * outcomes read from the replies only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { REACT_PAGES } from "./react-pages.ts";

requireChromium();

const site = startFixtureServer(REACT_PAGES);
const env = makeBpEnv();
const KEY = "agent-react";

type El = { r: number; t: string; n: string; v?: string; s?: string };
interface Reply {
  ok: boolean;
  evidence?: { status: string; reason?: string; effects?: string[]; selected?: string[] };
  diff?: { added?: El[]; changed?: El[]; removed?: (number | string)[]; text?: string[]; announced?: string[] };
}
const run = async (args: string[]) => (await env.run(args, { key: KEY })).json as unknown as Reply;
const listed = async (): Promise<El[]> => ((await env.run(["snapshot"], { key: KEY })).json.elements ?? []) as El[];
const refOf = (els: El[], name: string): string => {
  const e = els.find((x) => x.n === name);
  if (!e) throw new Error(`${name} not listed: ${JSON.stringify(els)}`);
  return String(e.r);
};
const ref = async (name: string) => refOf(await listed(), name);

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/react`, "--new"])).ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("real React", () => {
  test("a controlled input: typed, read back, and the greeting it rendered is in the reply", async () => {
    const typed = await run(["type", await ref("Your name"), "Ada"]);
    expect(typed.evidence?.status).toBe("verified");
    expect(typed.diff?.changed?.[0]?.v).toBe("Ada");
    expect(typed.diff?.text).toEqual(["Hello, Ada!"]);
  });

  test("clicks reach handlers on React's root listener, an icon button's too; each reply says the new count", async () => {
    const add = await ref("Add one");
    for (const n of [1, 2]) {
      const r = await run(["click", add]);
      expect({ status: r.evidence?.status, text: r.diff?.text }).toEqual({ status: "verified", text: [`Count: ${n}`] });
    }
    // The press lands on the svg inside the button.
    const reset = await run(["click", await ref("Reset")]);
    expect({ status: reset.evidence?.status, text: reset.diff?.text }).toEqual({
      status: "verified",
      text: ["Count: 0"],
    });
  });

  test("a controlled checkbox toggles; one React puts back is a mismatch, never verified", async () => {
    const on = await run(["click", await ref("Not subscribed")]);
    expect(on.evidence?.status).toBe("verified");
    expect(on.evidence?.effects).toContain("checked_changed");
    expect(on.diff?.changed?.[0]).toMatchObject({ n: "Subscribed", s: "checked" });

    const locked = await run(["click", await ref("Accept the terms")]);
    expect(locked.evidence).toMatchObject({ status: "mismatch", reason: "expected_state_unchanged" });
    const after = (await listed()).find((e) => e.n === "Accept the terms");
    expect(after?.s ?? "").not.toContain("checked");
  });

  test("a controlled select: the option is chosen and the text it rendered is in the reply", async () => {
    const r = await run(["select", await ref("Country"), "Japan"]);
    expect(r.evidence).toMatchObject({ status: "verified", selected: ["Japan"] });
    expect(r.diff?.text).toEqual(["Shipping to Japan"]);
  });

  test("a form's submit adds a row with a ref of its own; removing one says the new total", async () => {
    const added = await run(["type", await ref("New task"), "Eggs", "--submit"]);
    expect(added.evidence?.status).toBe("verified");
    expect(added.diff?.added?.map((e) => e.n)).toEqual(["Remove Eggs"]);
    expect(added.diff?.text).toContain("2 tasks");
    const milk = await ref("Remove Milk");
    const removed = await run(["click", milk]);
    expect(removed.evidence?.status).toBe("verified");
    expect(removed.diff?.removed?.map(String)).toContain(milk);
    expect(removed.diff?.text).toContain("1 task");
  });

  test("a debounced search: its results come with the typing reply; a no-match message naming the query is the answer, not an echo", async () => {
    const box = await ref("Search fruit");
    const found = await run(["type", box, "ap"]);
    expect(found.diff?.added?.map((e) => e.n)).toEqual(["Apple", "Apricot"]);
    const none = await run(["type", box, "kiwi", "--clear"]);
    expect(none.evidence?.status).toBe("verified");
    expect(none.diff?.changed?.[0]?.v).toBe("kiwi");
    expect(none.diff?.text).toEqual(["No fruit matches kiwi"]);
  });

  test("a dialog rendered in a portal: its controls are in the opening reply, gone after closing", async () => {
    const opened = await run(["click", await ref("Open settings")]);
    expect(opened.evidence?.status).toBe("verified");
    expect(opened.diff?.added?.map((e) => e.n)).toEqual(["Close settings"]);
    expect(opened.diff?.text).toEqual(["Dark mode is off"]);
    const close = refOf(opened.diff?.added ?? [], "Close settings");
    const closed = await run(["click", close]);
    expect(closed.evidence?.status).toBe("verified");
    expect(closed.diff?.removed?.map(String)).toContain(close);
  });

  test("a save answered by the server 150 ms later: its status line is in the click's reply", async () => {
    const r = await run(["click", await ref("Save draft")]);
    expect(r.evidence?.status).toBe("verified");
    expect(r.evidence?.effects).toContain("network_requests");
    expect(r.diff?.announced).toEqual(["Saved at 10:42"]);
  });
});
