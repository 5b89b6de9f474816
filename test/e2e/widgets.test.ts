import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";
import {
  ACCORDION,
  AUTOCOMPLETE,
  DATEPICKER,
  DUPLICATES,
  MAIL,
  REACTISH,
  SORTABLE,
  TOOLBAR_DND,
} from "./widget-pages.ts";

requireChromium();

const TASK = `<!doctype html><title>Task</title><h1>Checkout</h1><p>Enter your card, then press <a href="#x">Pay</a> to finish.</p>
<label>Card <input></label><div id=q>Select <b>Bob</b> and click Submit</div><button>Submit</button><p style="display:none">Hidden text</p><footer>Small print</footer>`;
const PAY = `<!doctype html><title>Pay</title><button onclick="document.getElementById('s').textContent='Paid with 4242'">Pay</button><p id=s></p>`;
const FRAMED = `<!doctype html><title>Framed</title><h1>Shop</h1><iframe src="/pay" style="width:400px;height:200px"></iframe>`;
const site = startFixtureServer({
  "/mail": MAIL,
  "/ac": AUTOCOMPLETE,
  "/dp": DATEPICKER,
  "/react": REACTISH,
  "/tb": TOOLBAR_DND,
  "/sort": SORTABLE,
  "/dups": DUPLICATES,
  "/task": TASK,
  "/acc": ACCORDION,
  "/framed": FRAMED,
  "/pay": PAY,
});
const env = makeBpEnv();
const KEY = "agent-widgets";

type El = { r: number; t: string; n?: string; d?: string };
const run = (args: string[]) => env.run(args, { key: KEY });
const snapshot = async (): Promise<El[]> => ((await run(["snapshot"])).json.elements ?? []) as El[];
const hit = async () => (await run(["eval", "document.body.dataset.hit"])).json.value;
const refOf = (els: El[], pick: (e: El) => boolean, what: string): string => {
  const e = els.find(pick);
  if (!e) throw new Error(`${what} not listed: ${JSON.stringify(els)}`);
  return String(e.r);
};

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/mail`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("delegated clickables have their own refs", () => {
  test("jQuery-delegated icons inside a clickable row: own refs, described from their class, each reaching its own handler", async () => {
    const els = await snapshot();
    const stars = els.filter((e) => e.d === "icon star");
    expect(stars.length).toBe(2);
    expect(els.filter((e) => e.d?.startsWith("icon forward")).length).toBe(2);
    // The row is still a control of its own, and the delegating container is none.
    expect(els.some((e) => e.n === "Ann Lunch on Friday")).toBe(true);
    expect(els.some((e) => e.n?.includes("Bob") && e.n?.includes("Ann"))).toBe(false);
    expect((await run(["click", String(stars[1]?.r)])).json.ok).toBe(true);
    expect(await hit()).toBe("star r2");
    // A delegating container with a handler of its own (no pointer cursor) stays a control, its delegated icon too.
    expect(els.some((e) => e.n === "Notes pane")).toBe(true);
    expect((await run(["click", refOf(els, (e) => e.d === "icon pin", "pin")])).json.ok).toBe(true);
    expect(await hit()).toBe("pin");
    const fwd = els.find((e) => e.d?.startsWith("icon forward"));
    expect((await run(["click", String(fwd?.r)])).json.ok).toBe(true);
    expect(await hit()).toBe("forward r1");
  });

  test("find gives a delegated icon its own ref, and an element inside a listed control only as `container`", async () => {
    const els = await snapshot();
    const star = els.find((e) => e.d === "icon star");
    const found = (await run(["find", "#r1 .star"])).json.elements as { r?: number; container?: number }[];
    expect(found[0]?.r).toBe(star?.r);
    expect(found[0]?.container).toBeUndefined();
    const bold = (await run(["find", "#r1 b"])).json.elements as { r?: number; container?: number }[];
    expect(bold[0]?.r).toBeUndefined();
    expect(bold[0]?.container).toBe(Number(refOf(els, (e) => e.n === "Ann Lunch on Friday", "row")));
    // Text straight in the row is the row's; text in a part of it (`<b>Ann</b>`) is inside it.
    const row = Number(refOf(els, (e) => e.n === "Ann Lunch on Friday", "row"));
    expect(((await run(["search", "Lunch on Friday"])).json.matches as { r?: number }[])[0]?.r).toBe(row);
    const searched = (await run(["search", "Ann"])).json.matches as { r?: number; container?: number }[];
    expect(searched[0]?.r).toBeUndefined();
    expect(searched[0]?.container).toBe(row);
  });

  test("autocomplete suggestions (jQuery UI markup: a tabindex=-1 wrapper, a handler delegated to the list) come with the typing reply and are clickable", async () => {
    await run(["open", `${site.a}/ac`]);
    const box = refOf(await snapshot(), (e) => e.n === "City", "City");
    const typed = await run(["type", box, "Ap"]);
    const added = (typed.json.diff as { added?: El[] }).added ?? [];
    const apricot = refOf(added, (e) => e.n === "Apricot Hill", "suggestion");
    expect(added.some((e) => e.n === "Apple Valley")).toBe(true);
    expect((await run(["click", apricot])).json.ok).toBe(true);
    expect(await hit()).toBe("Apricot Hill");
  });

  test("collapsible sections (MiniWoB): delegated headers and the delegated links a header reveals have refs, straight from the click's reply", async () => {
    await run(["open", `${site.a}/acc`]);
    const els = await snapshot();
    expect(els.map((e) => e.n)).toEqual(["Section #1", "Section #2"]);
    const opened = await run(["click", refOf(els, (e) => e.n === "Section #2", "header")]);
    const added = (opened.json.diff as { added?: El[] }).added ?? [];
    const link = refOf(added, (e) => e.n === "amet", "revealed link");
    expect((await run(["click", link])).json.ok).toBe(true);
    expect(await hit()).toBe("amet");
  });

  test("React-style root listener: elements whose props hold onClick are listed, plain text is not", async () => {
    await run(["open", `${site.a}/react`]);
    const els = await snapshot();
    expect(els.map((e) => e.n)).toEqual(["Like", "Share"]);
    expect((await run(["click", refOf(els, (e) => e.n === "Share", "Share")])).json.ok).toBe(true);
    expect(await hit()).toBe("share");
    // What React renders on a click is in that click's reply, with a ref.
    const liked = await run(["click", refOf(els, (e) => e.n === "Like", "Like")]);
    const undo = refOf((liked.json.diff as { added?: El[] }).added ?? [], (e) => e.n === "Undo", "Undo");
    expect((await run(["click", undo])).json.ok).toBe(true);
    expect(await hit()).toBe("undo");
  });

  test("toolbar items, HTML5 draggables and their drop zone have refs; a drag onto the zone drops", async () => {
    await run(["open", `${site.a}/tb`]);
    const els = await snapshot();
    for (const n of ["Bold", "Italic", "Card one", "Card two", "Trash"]) expect(els.map((e) => e.n)).toContain(n);
    expect(els.some((e) => e.n === "Plain paragraph")).toBe(false);
    expect(els.filter((e) => e.n === "Save draft").map((e) => e.t)).toEqual(["button"]);
    expect((await run(["click", refOf(els, (e) => e.n === "Italic", "Italic")])).json.ok).toBe(true);
    expect(await hit()).toBe("Italic");
    const drag = await run([
      "drag",
      refOf(els, (e) => e.n === "Card two", "card"),
      refOf(els, (e) => e.n === "Trash", "bin"),
    ]);
    expect(drag.json.ok).toBe(true);
    expect(await hit()).toBe("dropped c2");
  });
});

describe("churn is folded", () => {
  test("a datepicker page turn: Prev/Next have refs after every redraw, the 31 new day links are one entry, the reply stays under 500 characters", async () => {
    await run(["open", `${site.a}/dp`]);
    const els = await snapshot();
    const next = refOf(els, (e) => e.n === "Next", "Next");
    const turn = await run(["click", next]);
    expect(turn.json.ok).toBe(true);
    expect(turn.stdout.length).toBeLessThanOrEqual(500);
    const added = (turn.json.diff as { added: Record<string, unknown>[] }).added;
    const run31 = added.find((e) => e.replaced !== undefined);
    expect(run31).toMatchObject({ replaced: 31, t: "link", ex: ["1", "31"] });
    expect(run31?.was).toEqual([expect.stringMatching(/^\d+-\d+$/)]);
    // The redrawn Prev has a ref of its own straight from the action's reply.
    const prev = added.find((e) => e.n === "Prev") as El | undefined;
    expect(prev).toBeDefined();
    expect((await run(["click", String(prev?.r)])).json.ok).toBe(true);
    // A day in the folded run is clickable by its ref.
    const days = (await snapshot()).filter((e) => e.t === "link");
    expect((await run(["click", String(days[6]?.r)])).json.ok).toBe(true);
    expect((await run(["eval", "document.getElementById('date').value"])).json.value).toBe("12/7/2026");
  });
});

describe("new verbs", () => {
  test("click --text finds the control by its name (exact, else the one containing it); several or none is an error naming candidates with refs", async () => {
    await run(["open", `${site.a}/dups`]);
    const many = await run(["click", "--text", "delete"]);
    expect(many.json.ok).toBe(false);
    expect(many.json.code).toBe("invalid_argument");
    const candidates = (many.json.context as { candidates: El[] }).candidates;
    expect(candidates.map((c) => c.n)).toEqual(["Delete", "Delete"]);
    expect(candidates.every((c) => typeof c.r === "number")).toBe(true);
    expect((await run(["click", "--text", "ALL"])).json.ok).toBe(true);
    expect(await hit()).toBe("all");
    const none = await run(["click", "--text", "Nothing like it"]);
    expect(none.json.code).toBe("invalid_argument");
    expect(await hit()).toBe("all");
  });

  test("click --text --times: ten Prev clicks in one call, each on the redrawn Prev, one compact reply", async () => {
    await run(["open", `${site.a}/dp`]);
    await run(["snapshot"]);
    const r = await run(["click", "--text", "Prev", "--times", "10"]);
    expect(r.json.ok).toBe(true);
    expect(r.json.times).toBe(10);
    // The last turn's outcome: the month title it drew.
    expect((r.json.diff as { text?: string[] }).text).toEqual(["February 2026"]);
    expect(r.stdout.length).toBeLessThanOrEqual(500);
    expect((await run(["eval", "document.querySelector('.ui-datepicker-title').textContent"])).json.value).toBe(
      "February 2026",
    );
    // A ref repeated: a counter button.
    await run(["open", `${site.a}/dups`]);
    const counter = refOf(await snapshot(), (e) => e.n === "0", "counter");
    expect((await run(["click", counter, "--times", "3"])).json.ok).toBe(true);
    expect((await run(["eval", "document.querySelectorAll('button')[3].textContent"])).json.value).toBe("3");
  });

  test("drag --offset drops below the last item of a sortable list (move Ann to the end); --to-xy drops at a point", async () => {
    await run(["open", `${site.a}/sort`]);
    const els = await snapshot();
    const ann = refOf(els, (e) => e.n === "Ann", "Ann");
    const cid = refOf(els, (e) => e.n === "Cid", "Cid");
    // On the centre: before Cid, as without --offset.
    expect((await run(["drag", ann, cid])).json.ok).toBe(true);
    expect((await run(["eval", "document.body.dataset.order"])).json.value).toBe("Bob,Ann,Cid");
    expect((await run(["drag", ann, cid, "--offset", "0,12"])).json.ok).toBe(true);
    expect((await run(["eval", "document.body.dataset.order"])).json.value).toBe("Bob,Cid,Ann");
    const top = (await run(["eval", "JSON.stringify(document.getElementById('list').getBoundingClientRect())"])).json
      .value as string;
    const box = JSON.parse(top) as { left: number; top: number };
    expect(
      (await run(["drag", ann, "--to-xy", `${Math.round(box.left + 20)},${Math.round(box.top + 3)}`])).json.ok,
    ).toBe(true);
    expect((await run(["eval", "document.body.dataset.order"])).json.value).toBe("Ann,Bob,Cid");
    const bad = await run(["drag", ann, "--to-xy", "nowhere"]);
    expect(bad.json.code).toBe("invalid_argument");
    expect((bad.json.context as { field: string }).field).toBe("to-xy");
  });
});

describe("snapshot --text", () => {
  test("headings and short text blocks come in document order among the controls; hidden text and labels do not", async () => {
    await run(["open", `${site.a}/task`]);
    const plain = await run(["snapshot"]);
    const r = await run(["snapshot", "--text"]);
    const els = r.json.elements as { r?: number; n?: string; h?: number; x?: string }[];
    expect(els.map((e) => (e.x !== undefined ? `${e.h ? "h" + e.h : "x"}:${e.x}` : `r:${e.n}`))).toEqual([
      "h1:Checkout",
      "x:Enter your card, then press Pay to finish.",
      "r:Pay",
      "r:Card",
      "x:Select Bob and click Submit",
      "r:Submit",
      "x:Small print",
    ]);
    // Without --text, not a character more.
    expect((plain.json.elements as unknown[]).length).toBe(3);
    const human = await run(["snapshot", "--text", "--human"]);
    expect(human.stdout).toContain("# Checkout");
    expect(human.stdout).toContain("| Select Bob and click Submit");
  });
});

describe("outcome text in action replies", () => {
  test("a click's reply carries the text it produced (status line, month title), a script-set readonly value, and a list's new order", async () => {
    await run(["open", `${site.a}/mail`]);
    const star = (await snapshot()).filter((e) => e.d === "icon star")[1];
    const starred = await run(["click", String(star?.r)]);
    expect((starred.json.diff as { text?: string[] }).text).toEqual(["star r2"]);

    await run(["open", `${site.a}/dp`]);
    const els = await snapshot();
    const turn = await run(["click", refOf(els, (e) => e.n === "Next", "Next")]);
    expect((turn.json.diff as { text?: string[] }).text).toEqual(["January 2027"]);
    expect(turn.stdout.length).toBeLessThanOrEqual(500);
    const day = (await snapshot()).filter((e) => e.t === "link")[14];
    const picked = await run(["click", String(day?.r)]);
    const changed = (picked.json.diff as { changed?: { n: string; v?: string }[] }).changed ?? [];
    expect(changed.find((c) => c.n === "Date")?.v).toBe("1/15/2027");

    // In a same-origin frame too.
    await run(["open", `${site.a}/framed`]);
    const paid = await run(["click", refOf(await snapshot(), (e) => e.n === "Pay", "Pay")]);
    expect((paid.json.diff as { text?: string[] }).text).toEqual(["Paid with 4242"]);

    await run(["open", `${site.a}/sort`]);
    const items = await snapshot();
    const moved = await run([
      "drag",
      refOf(items, (e) => e.n === "Ann", "Ann"),
      refOf(items, (e) => e.n === "Cid", "Cid"),
      "--offset",
      "0,12",
    ]);
    expect((moved.json.diff as { order?: string[] }).order).toEqual(["Bob", "Cid", "Ann"]);
  });
});
