/**
 * bp against the real jQuery UI (autocomplete, datepicker, sortable, tabs, accordion, menu), driven as
 * an agent would: refs from replies and snapshots, outcomes read from the replies only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import { JQUERY_UI_PAGES } from "./jquery-ui-pages.ts";

requireChromium();

const site = startFixtureServer(JQUERY_UI_PAGES);
const env = makeBpEnv();
const KEY = "agent-jquery-ui";

type El = { r: number; t: string; n?: string; v?: string; s?: string };
type Diff = {
  added?: (El & { replaced?: number; ex?: string[] })[];
  changed?: El[];
  text?: string[];
  order?: string[];
};
const run = (args: string[]) => env.run(args, { key: KEY });
const snapshot = async (): Promise<El[]> => ((await run(["snapshot"])).json.elements ?? []) as El[];
const refOf = (els: El[], pick: (e: El) => boolean, what: string): string => {
  const e = els.find(pick);
  if (!e) throw new Error(`${what} not listed: ${JSON.stringify(els)}`);
  return String(e.r);
};

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/ui/ac`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("real jQuery UI", () => {
  test("autocomplete: the suggestions come with the typing reply, each with its own ref; clicking one fills the input", async () => {
    const box = refOf(await snapshot(), (e) => e.n === "City", "City");
    const typed = await run(["type", box, "Ap"]);
    expect(typed.json.ok).toBe(true);
    const added = (typed.json.diff as Diff).added ?? [];
    // The menu (a tabindex=0 <ul>) does not swallow its items: each has a ref of its own.
    expect(added.filter((e) => e.t === "listitem").map((e) => e.n)).toEqual(["Apple Valley", "Apricot Hill"]);
    const apricot = refOf(added, (e) => e.n === "Apricot Hill", "suggestion");
    expect(apricot).not.toBe(refOf(added, (e) => e.n === "Apple Valley", "suggestion"));
    const picked = await run(["click", apricot]);
    expect(picked.json.ok).toBe(true);
    expect((picked.json.evidence as { status: string }).status).toBe("verified");
    expect(((picked.json.diff as Diff).changed ?? []).find((c) => c.r === Number(box))?.v).toBe("Apricot Hill");
    // The same in a later snapshot, for an agent that lost the reply.
    await run(["type", box, "As", "--clear"]);
    expect((await snapshot()).some((e) => e.t === "listitem" && e.n === "Ashford")).toBe(true);
  });

  test("datepicker: opened by a click on its input; Prev turns three months in one call; the churn is folded; a day sets the input", async () => {
    await run(["open", `${site.a}/ui/dp`]);
    const input = refOf(await snapshot(), (e) => e.n === "Date", "Date");
    const opened = await run(["click", input]);
    expect(opened.json.ok).toBe(true);
    const shown = opened.json.diff as Diff;
    expect(shown.added?.some((e) => e.n === "Prev")).toBe(true);
    expect(shown.added?.some((e) => e.n === "Next")).toBe(true);
    expect(shown.added?.find((e) => e.replaced !== undefined)).toMatchObject({
      replaced: 31,
      t: "link",
      ex: ["1", "31"],
    });
    // The month title is one text (jQuery UI draws it as two spans).
    expect(shown.text?.[0]).toBe("December 2026");
    expect(opened.stdout.length).toBeLessThanOrEqual(500);

    const back = await run(["click", "--text", "Prev", "--times", "3"]);
    expect(back.json.ok).toBe(true);
    expect(back.json.times).toBe(3);
    expect((back.json.diff as Diff).text).toEqual(["September 2026"]);
    expect(back.stdout.length).toBeLessThan(500);
    const next = refOf((back.json.diff as Diff).added ?? [], (e) => e.n === "Next", "the redrawn Next");
    const fwd = await run(["click", next]);
    expect((fwd.json.diff as Diff).text).toEqual(["October 2026"]);
    expect(fwd.stdout.length).toBeLessThan(500);

    const day = refOf(await snapshot(), (e) => e.t === "link" && e.n === "15", "day 15");
    const picked = await run(["click", day]);
    expect(picked.json.ok).toBe(true);
    expect(((picked.json.diff as Diff).changed ?? []).find((c) => c.r === Number(input))?.v).toBe("10/15/2026");
  });

  test("sortable: drag --offset below the last item moves it to the end; the reply's diff.order has the new order", async () => {
    await run(["open", `${site.a}/ui/sort`]);
    const els = await snapshot();
    expect(els.map((e) => e.n)).toEqual(["Ann", "Bob", "Cid"]);
    const moved = await run([
      "drag",
      refOf(els, (e) => e.n === "Ann", "Ann"),
      refOf(els, (e) => e.n === "Cid", "Cid"),
      "--offset",
      "0,12",
    ]);
    expect(moved.json.ok).toBe(true);
    expect((moved.json.diff as Diff).order).toEqual(["Bob", "Cid", "Ann"]);
    // jQuery UI's own `update` saw the same order.
    expect((await run(["eval", "document.body.dataset.order"])).json.value).toBe("Bob,Cid,Ann");
  });

  test("tabs and accordion: headers have refs, a click switches the panel and the reply says so", async () => {
    await run(["open", `${site.a}/ui/tabs`]);
    const els = await snapshot();
    const tab = refOf(els, (e) => e.t === "tab" && e.n === "Proin", "tab Proin");
    // The tab's presentational anchor is part of the tab, not a second ref of the same name.
    expect(els.map((e) => `${e.t}:${e.n}`)).toEqual(["tab:Nunc", "tab:Proin", "tab:Alpha", "tab:Beta"]);
    const switched = await run(["click", tab]);
    const d = switched.json.diff as Diff;
    expect(d.changed?.find((c) => c.r === Number(tab))?.s).toContain("selected");
    expect(d.text).toEqual(["Second panel text"]);
    const header = refOf(els, (e) => e.t === "tab" && e.n === "Beta", "accordion Beta");
    const opened = await run(["click", header]);
    expect((opened.json.diff as Diff).changed?.find((c) => c.r === Number(header))?.s).toContain("expanded");
    expect((opened.json.diff as Diff).text).toEqual(["Beta body"]);
  });

  test("animated accordion: the reply comes once the panel has opened, with its delegated links, every time", async () => {
    expect((await run(["open", `${site.a}/ui/accordion`])).json.ok).toBe(true);
    const els = await snapshot();
    // Alternate between two closed parts: each click runs the library's height animation by script.
    for (let i = 0; i < 8; i++) {
      const part = i % 2 === 0 ? 2 : 3;
      const header = refOf(els, (e) => e.n === `Part ${part}`, `Part ${part}`);
      const clicked = await run(["click", header]);
      expect(clicked.json.ok).toBe(true);
      const added = ((clicked.json.diff as Diff).added ?? []).map((e) => e.n);
      expect(added).toEqual([`go-${part}a`, `go-${part}b`]);
      expect((await run(["eval", "$(':animated').length"])).json.value).toBe(0);
    }
    const link = await run(["click", "--text", "go-3b"]);
    expect((link.json.diff as Diff).text).toEqual(["Picked go-3b"]);
  });

  test("menu: hovering a parent item answers with its submenu, which opens after the library's hover delay; an item of it is then clicked", async () => {
    expect((await run(["open", `${site.a}/ui/menu`])).json.ok).toBe(true);
    for (let round = 1; round <= 3; round++) {
      const els = await snapshot();
      // Away from the menu first (it closes its submenu after the same delay), then onto the parent item.
      const away = await run(["hover", refOf(els, (e) => e.n === "Home", "Home")]);
      expect(away.json.ok).toBe(true);
      await Bun.sleep(450);
      const hovered = await run(["hover", refOf(await snapshot(), (e) => e.n === "Books", "Books")]);
      expect(hovered.json.evidence).toMatchObject({ status: "verified", hovered: true });
      const added = ((hovered.json.diff as Diff).added ?? []).map((e) => e.n);
      expect({ round, added }).toEqual({ round, added: ["Fiction", "Poetry"] });
    }
    const poetry = await run(["click", "--text", "Poetry"]);
    expect((poetry.json.diff as Diff).text).toEqual(["Picked Poetry"]);
  });
});
