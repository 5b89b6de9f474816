import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, waitFor, type BpResult } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const site = startFixtureServer({
  // Suggestions after a 300 ms debounce, as li items bound with addEventListener only.
  "/autocomplete": `<!doctype html><title>Autocomplete</title><input id=city aria-label="City"><ul id=list></ul>
    <script>
      let timer;
      document.getElementById("city").addEventListener("input", (e) => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          const list = document.getElementById("list");
          list.innerHTML = "";
          for (const name of ["Paris", "Parma"].filter((n) => n.toLowerCase().startsWith(e.target.value.toLowerCase()))) {
            const li = document.createElement("li");
            li.textContent = name;
            li.addEventListener("mousedown", () => { e.target.value = name; list.innerHTML = ""; });
            list.appendChild(li);
          }
        }, 300);
      });
    </script>`,
  // Suggestions fetched after a 200 ms debounce from a server that answers after 1.2 s: the
  // request starts inside the late window, the list lands long after it.
  "/suggest-data": () =>
    new Promise<Response>((r) => setTimeout(() => r(new Response("Lisbon,Lima")), 1200)) as unknown as Response,
  "/slow-autocomplete": `<!doctype html><title>Slow autocomplete</title><input id=city aria-label="City"><ul id=list></ul>
    <script>
      let timer;
      document.getElementById("city").addEventListener("input", () => {
        clearTimeout(timer);
        timer = setTimeout(async () => {
          const names = (await (await fetch("/suggest-data")).text()).split(",");
          const list = document.getElementById("list");
          list.innerHTML = "";
          for (const name of names) { const li = document.createElement("li"); li.textContent = name; li.addEventListener("mousedown", () => {}); list.appendChild(li); }
        }, 200);
      });
    </script>`,
  // Accordions: one opens through a CSS transition (the panel is clipped until it has grown),
  // the other through JS timer steps (no transition, a style change every 16 ms).
  "/accordion": `<!doctype html><title>Accordion</title>
    <style>#css-panel { height: 0; overflow: hidden; transition: height 350ms ease } #css-panel.open { height: 60px }</style>
    <button onclick="document.getElementById('css-panel').classList.add('open')">CSS section</button>
    <div id=css-panel><div style="height:30px"></div><button>CSS panel action</button></div>
    <button onclick="grow()">JS section</button>
    <div id=js-panel style="height:0;overflow:hidden"><div style="height:30px"></div><button>JS panel action</button></div>
    <script>
      function grow() { const p = document.getElementById("js-panel"); let h = 0; const t = setInterval(() => { h += 3; p.style.height = h + "px"; if (h >= 60) clearInterval(t); }, 16); }
    </script>`,
  // A field whose focus handler marks its wrapper (a mutation), with suggestions after a 300 ms
  // debounce and no suggestion attributes: the focus change is not the page's answer to the text.
  "/focus-suggest": `<!doctype html><title>Focus suggest</title><div id=wrap><input id=city aria-label="City"></div><ul id=list></ul>
    <script>
      const city = document.getElementById("city");
      city.addEventListener("focus", () => document.getElementById("wrap").classList.add("focused"));
      let timer;
      city.addEventListener("input", () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          for (const name of ["Paris", "Parma"]) { const li = document.createElement("li"); li.textContent = name; li.addEventListener("mousedown", () => {}); document.getElementById("list").appendChild(li); }
        }, 300);
      });
    </script>`,
  // A focus handler that opens a dialog a task later, and a field that alerts a moment after each keystroke.
  "/focus-alert": `<!doctype html><title>Focus alert</title><input id=f aria-label="Alerting" onfocus="setTimeout(() => alert('focused'), 0)">
    <input id=k aria-label="Keyed" oninput="setTimeout(() => alert('typed'), 15)">`,
  // A page that polls an address every 25 ms on its own, and a button that changes at once.
  "/ping": () => new Response("pong"),
  "/poll": `<!doctype html><title>Poll</title><button onclick="this.textContent = 'Clicked ' + (window.n = (window.n || 0) + 1)">Press me</button>
    <script>setInterval(() => fetch("/ping?t=" + Date.now()).catch(() => {}), 25);</script>`,
  // A chat: the page polls its messages with GET every 100 ms; Send posts to the same address,
  // which answers after 200 ms, and the page then says so.
  "/api/messages": (_url, req) =>
    (req?.method === "POST"
      ? new Promise<Response>((r) => setTimeout(() => r(new Response("ok")), 200))
      : new Response("[]")) as unknown as Response,
  "/chat": `<!doctype html><title>Chat</title><p id=out></p>
    <button onclick="fetch('/api/messages', { method: 'POST', body: 'hi' }).then((r) => r.text()).then((t) => { document.getElementById('out').innerHTML = '<button>Sent ' + t + '</button>'; })">Send</button>
    <script>setInterval(() => fetch("/api/messages?since=" + Date.now()).catch(() => {}), 100);</script>`,
  // A quick API answer that the page renders a moment after it lands: the request starts and
  // ends inside the click's settle, the render comes after that settle's snapshot.
  "/quick-data": () =>
    new Promise<Response>((r) => setTimeout(() => r(new Response("ready")), 14)) as unknown as Response,
  "/quick-render": `<!doctype html><title>Quick render</title><p id=out></p>
    <button onclick="fetch('/quick-data').then((r) => r.text()).then((t) => setTimeout(() => { document.getElementById('out').innerHTML = '<button>Loaded ' + t + '</button>'; }, 10))">Load</button>`,
  "/confirm": `<!doctype html><title>Confirm</title><button onclick="if (confirm('Delete it?')) { document.getElementById('row').remove(); document.body.insertAdjacentHTML('beforeend', '<button>Undo delete</button>'); }">Delete</button><p id=row><button>Row item</button></p>`,
  "/outer": () => `<!doctype html><title>Outer</title><iframe src="${site.b}/inner"></iframe>`,
  "/inner": `<!doctype html><title>Inner</title><button onclick="this.textContent = 'Clicked inside'">Frame button</button>`,
  "/select": `<!doctype html><title>Select</title><label>Country <select><option>Canada</option><option>Japan</option></select></label>`,
  // Its change handler renders the form again 5 ms later (a swapped fragment), with the chosen option selected.
  "/select-swap": `<!doctype html><title>Swap</title><div id=box></div>
    <script>
      const draw = (v) => (box.innerHTML = '<label>Size <select onchange="swap(this.value)"><option>Small</option><option' + (v === "Large" ? " selected" : "") + '>Large</option></select></label>');
      const swap = (v) => setTimeout(() => draw(v), 5);
      draw("Small");
    </script>`,
  // A native select whose change handler alerts, and one whose change handler saves the choice through the function
  // the page also polls with every 100 ms; the server answers the save after 300 ms, and the page then says so.
  "/select-alert": `<!doctype html><title>Select alert</title><label>Plan <select onchange="alert('Plan: ' + this.value)"><option>Free</option><option>Pro</option></select></label>`,
  "/plan-data": (url) =>
    new Promise<Response>((r) =>
      setTimeout(() => r(new Response("saved")), url.searchParams.get("v") === "poll" ? 0 : 300),
    ) as unknown as Response,
  "/select-save": `<!doctype html><title>Select save</title><p id=out></p>
    <label>Plan <select onchange="plan(this.value).then((t) => { out.innerHTML = '<button>Plan ' + t + '</button>'; })"><option>Free</option><option>Pro</option></select></label>
    <script>
      const plan = (v) => fetch("/plan-data?v=" + v).then((r) => r.text());
      setInterval(() => plan("poll").catch(() => {}), 100);
    </script>`,
  "/same-doc": `<!doctype html><title>Same doc</title>
    <a href="#">Top link</a> <a href="#section">Section link</a>
    <button onclick="history.pushState({}, '', '/pushed'); document.getElementById('out').textContent = 'pushed'">Push state</button>
    <p id=out></p><div style="height:2000px"></div><h2 id=section>Section</h2>`,
});
const env = makeBpEnv();
const KEY = "agent-settle";
const run = (args: string[]) => env.run(args, { key: KEY });

type El = { r: number; n?: string };
type Evidence = { status?: string; effects?: string[] };
const evidence = (r: BpResult) => r.json.evidence as Evidence;
const refOf = async (name: string): Promise<string> =>
  String(((await run(["snapshot"])).json.elements as El[]).find((e) => e.n === name)?.r);

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/same-doc`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("evidence tells what happened", () => {
  test("click --xy names the element it hit, with its ref", async () => {
    await run(["open", `${site.a}/same-doc`]);
    const ref = await refOf("Push state");
    const located = (await run(["locate", "button"])).json;
    const at = { x: Number(located.x), y: Number(located.y) };
    const r = await run(["click", "--xy", `${at.x},${at.y}`]);
    expect(r.json.ok).toBe(true);
    expect((r.json.evidence as { target?: Record<string, unknown> }).target).toMatchObject({
      tagName: "button",
      name: "Push state",
      ref: Number(ref),
    });
  });

  test("a click that changes only a cross-origin frame's DOM reports dom_changed", async () => {
    await run(["open", `${site.a}/outer`]);
    const r = await run(["click", await refOf("Frame button")]);
    expect(evidence(r)).toMatchObject({ status: "verified" });
    expect(evidence(r).effects).toContain("dom_changed");
  });

  test("bp dialog --accept returns evidence and the page change after the answer", async () => {
    await run(["open", `${site.a}/confirm`]);
    const click = await run(["click", await refOf("Delete")]);
    const id = (click.json.evidence as { dialog?: { id: string } }).dialog?.id ?? "";
    // The click's evidence is lean with a dialog open too: no action name, click point or target the agent named.
    for (const k of ["action", "point", "target", "kind"])
      expect(click.json.evidence as Record<string, unknown>).not.toHaveProperty(k);
    expect(id).toMatch(/^d\d+$/);
    const r = await run(["dialog", id, "--accept"]);
    expect(r.json).toMatchObject({
      ok: true,
      id,
      action: "accept",
      evidence: { status: "verified", kind: "confirm", answer: "accept" },
    });
    expect(evidence(r).effects).toContain("dom_changed");
    const diff = r.json.diff as { added: El[]; removed: number[] };
    expect(diff.added.map((e) => e.n)).toContain("Undo delete");
    expect(diff.removed.length).toBeGreaterThan(0);
  });

  test("a native select reports its value change in effects", async () => {
    await run(["open", `${site.a}/select`]);
    const r = await run(["select", await refOf("Country"), "Japan"]);
    expect(evidence(r)).toMatchObject({ status: "verified" });
    expect(evidence(r).effects).toContain("value_changed");
    const again = await run(["select", await refOf("Country"), "Japan"]);
    expect(evidence(again).effects ?? []).not.toContain("value_changed");
  });

  test("a native select the page renders again after its change is judged by the setter's reading, not the detached old one", async () => {
    await run(["open", `${site.a}/select-swap`]);
    const r = await run(["select", await refOf("Size"), "Large"]);
    expect(evidence(r)).toMatchObject({ status: "verified", selected: ["Large"] });
    const now = (await run(["snapshot"])).json.elements as (El & { v?: string })[];
    expect(now.find((e) => e.n === "Size")).toMatchObject({ v: "Large" });
  });

  // The option is set in the call that finds it (round-trips.test.ts): that call is the action's input.
  test("a native select whose change handler alerts answers with the dialog, at once; the choice stands once it is closed", async () => {
    await run(["open", `${site.a}/select-alert`]);
    const started = Date.now();
    const r = await run(["--timeout", "15000", "select", await refOf("Plan"), "Pro"]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(evidence(r)).toMatchObject({ status: "unavailable", reason: "dialog_opened" });
    const dialogs = (await run(["dialogs"])).json.dialogs as { id: string; message?: string }[];
    expect(dialogs).toEqual([expect.objectContaining({ message: "Plan: Pro" })]);
    expect((await run(["dialog", dialogs[0]?.id ?? "", "--accept"])).json.ok).toBe(true);
    expect((await run(["eval", "document.querySelector('select').value"])).json.value).toBe("Pro");
  });

  test("a native select whose change handler saves through the page's polling function answers with the server's reply", async () => {
    await run(["open", `${site.a}/select-save`]);
    const ref = await refOf("Plan");
    // The page's polling is learnt as such when no action runs: its address and call site are then the save's too.
    await Bun.sleep(600);
    const r = await run(["select", ref, "Pro"]);
    expect(evidence(r)).toMatchObject({ status: "verified", selected: ["Pro"] });
    expect(((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n)).toContain("Plan saved");
  });

  test("the text summary never shows a check mark for an unavailable outcome", async () => {
    await run(["open", `${site.a}/same-doc`]);
    const r = await env.run(["--human", "click", "--xy", "700,5"], { key: KEY });
    expect(r.code).toBe(0);
    const head = r.stdout.split("\n")[0] ?? "";
    expect(head).toContain("unavailable");
    expect(head.startsWith("✓")).toBe(false);
  });
});

describe("the reply shows the settled page", () => {
  test("an accordion that opens through a CSS transition or JS timer steps is open in the reply", async () => {
    await run(["open", `${site.a}/accordion`]);
    for (const [header, action] of [
      ["CSS section", "CSS panel action"],
      ["JS section", "JS panel action"],
    ] as const) {
      const r = await run(["click", await refOf(header)]);
      expect(r.json.ok).toBe(true);
      const added = ((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n);
      expect(added).toContain(action);
    }
  });

  test("a page's own polling is not waited for as if the action had started it", async () => {
    await run(["open", `${site.a}/poll`]);
    // Let the page poll a while first (the tab's network events are on from the open's first action on).
    await run(["click", await refOf("Press me")]);
    await Bun.sleep(300);
    for (let i = 1; i <= 3; i++) {
      const started = Date.now();
      const r = await run(["click", await refOf(`Clicked ${i}`)]);
      expect(evidence(r).effects ?? []).not.toContain("network_requests");
      // Before, every settle call saw a new request and settled again until the 3 s cap.
      expect(Date.now() - started).toBeLessThan(1_500);
    }
  });

  test("a POST to the address the page polls is the action's: its answer is waited for", async () => {
    await run(["open", `${site.a}/chat`]);
    await run(["click", await refOf("Send")]);
    await run(["eval", "document.getElementById('out').textContent = ''"]);
    await Bun.sleep(500);
    const r = await run(["click", await refOf("Send")]);
    expect(evidence(r).effects).toEqual(expect.arrayContaining(["network_requests", "dom_changed"]));
    expect(((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n)).toContain("Sent ok");
  });

  test("a response that lands inside the settle and renders a moment later is in the reply", async () => {
    await run(["open", `${site.a}/quick-render`]);
    for (let i = 0; i < 3; i++) {
      const r = await run(["click", await refOf("Load")]);
      expect(evidence(r).effects).toEqual(expect.arrayContaining(["network_requests", "dom_changed"]));
      const added = ((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n);
      expect(added).toContain("Loaded ready");
      await run(["eval", "document.getElementById('out').textContent = ''"]);
    }
  });

  test("suggestions after a debounce are waited for in a field whose focus handler changed the page", async () => {
    await run(["open", `${site.a}/focus-suggest`]);
    const r = await run(["type", await refOf("City"), "Par"]);
    expect(evidence(r)).toMatchObject({ status: "verified" });
    expect(((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n)).toEqual(
      expect.arrayContaining(["Paris", "Parma"]),
    );
  });

  test("a dialog a focus handler opens stops type before any text goes in; one opened after a keystroke does not hang it", async () => {
    try {
      await focusAlert();
    } finally {
      // Whatever happened, no dialog is left for the next test.
      for (const d of ((await run(["dialogs"])).json.dialogs as { id: string }[] | undefined) ?? [])
        await run(["dialog", d.id, "--dismiss"]);
    }
  });

  async function focusAlert(): Promise<void> {
    await run(["open", `${site.a}/focus-alert`]);
    const r = await run(["type", await refOf("Alerting"), "abc"]);
    expect(r.json).toMatchObject({
      ok: false,
      code: "action_not_verified",
      context: { reason: "dialog_opened", dispatched: false },
    });
    const dialogs = (await run(["dialogs"])).json.dialogs as { id: string }[];
    expect(dialogs.length).toBe(1);
    await run(["dialog", dialogs[0]?.id ?? "", "--dismiss"]);
    expect((await run(["eval", "document.getElementById('f').value"])).json.value).toBe("");
    // The keystroke's alert comes while the reply settles, asks whether the page listens to keys
    // or just after it answered: it never holds the reply to the deadline.
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const keyed = await run(["--timeout", "15000", "type", await refOf("Keyed"), "abc"]);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(keyed.json.ok).toBe(true);
      const ev = evidence(keyed) as Evidence & { reason?: string };
      expect(ev.status === "verified" || (ev.status === "unavailable" && ev.reason === "dialog_opened")).toBe(true);
      const open = await waitFor(
        async () => ((await run(["dialogs"])).json.dialogs as { id: string }[] | undefined)?.[0],
        5_000,
        "the keystroke's dialog",
      );
      await run(["dialog", open?.id ?? "", "--dismiss"]);
    }
  }

  test("an autocomplete list that appears a few hundred ms after typing is in the reply, with refs", async () => {
    await run(["open", `${site.a}/autocomplete`]);
    const r = await run(["type", await refOf("City"), "Par"]);
    expect(evidence(r)).toMatchObject({ status: "verified" });
    expect(evidence(r).effects).toContain("dom_changed");
    const added = (r.json.diff as { added?: El[] } | undefined)?.added ?? [];
    expect(added.map((e) => e.n)).toEqual(expect.arrayContaining(["Paris", "Parma"]));
    // The item removes the list on mousedown, so the click may end on a vanished target; the choice is what counts.
    const pick = await run(["click", String(added.find((e) => e.n === "Parma")?.r)]);
    expect(pick.json.code).not.toBe("stale_ref");
    expect((await run(["eval", "document.getElementById('city').value"])).json.value).toBe("Parma");
  });

  test("suggestions fetched slowly after a debounce are in the reply: the request keeps the wait going", async () => {
    await run(["open", `${site.a}/slow-autocomplete`]);
    const r = await run(["type", await refOf("City"), "L"]);
    expect(evidence(r)).toMatchObject({ status: "verified" });
    expect(evidence(r).effects).toEqual(expect.arrayContaining(["network_requests", "dom_changed"]));
    const added = ((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n);
    expect(added).toEqual(expect.arrayContaining(["Lisbon", "Lima"]));
  });

  test("a same-document navigation is url_changed with the diff, without waiting for a load", async () => {
    await run(["open", `${site.a}/same-doc`]);
    for (const [name, url] of [
      ["Section link", `${site.a}/same-doc#section`],
      ["Top link", `${site.a}/same-doc#`],
      ["Push state", `${site.a}/pushed`],
    ] as const) {
      const r = await run(["click", await refOf(name)]);
      expect(r.json.ok).toBe(true);
      expect(evidence(r).effects).toContain("url_changed");
      expect(evidence(r).effects).not.toContain("navigation");
      expect(evidence(r).status).toBe("verified");
      expect((r.json.diff as { url?: string } | undefined)?.url).toBe(url);
    }
  });
});
