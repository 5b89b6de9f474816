/**
 * What the page's live regions say after an action is in its reply (`diff.announced`): a toast
 * shown once a save request answered, a form's error, a chat log's new line, an <output>. They
 * are not interactive elements, so no snapshot lists them; without this an agent would have to
 * read the page to learn that its click was refused or saved.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, refNamed } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

const site = startFixtureServer({
  "/api/save": () => new Promise<Response>((r) => setTimeout(() => r(new Response("ok")), 120)) as unknown as Response,
  "/app": `<!doctype html><title>App</title>
    <div id=toast role=status></div>
    <form id=f><label>Email <input id=email type=email aria-label=Email></label><div id=err role=alert></div><button id=go>Sign up</button></form>
    <button id=save>Save</button> <button id=say>Say hi</button> <button id=add>Add</button> Items: <output id=count>0</output>
    <ul id=chat role=log><li>Welcome</li></ul>
    <div aria-live=off id=clock>0</div>
    <script>
      let n = 0, saved = 0;
      save.onclick = async () => { await (await fetch("/api/save", { method: "POST" })).text(); toast.textContent = "Saved " + ++saved; };
      f.onsubmit = (e) => { e.preventDefault(); err.textContent = email.value ? "" : "Enter your email"; };
      say.onclick = () => { const li = document.createElement("li"); li.textContent = "hi from you"; chat.append(li); };
      add.onclick = () => { count.textContent = String(++n); clock.textContent = "tick " + n; };
    </script>`,
});
const env = makeBpEnv();
const KEY = "agent-announced";
const run = (args: string[]) => env.run(args, { key: KEY });

const refOf = (name: string) => refNamed(run, name);
const announcedIn = (json: Record<string, unknown>) => (json.diff as { announced?: string[] } | undefined)?.announced;

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/app`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("an action's reply says what the page announced", () => {
  test("a toast shown once the save request answered", async () => {
    const save = await refOf("Save");
    const r = await run(["click", save]);
    expect(r.json).toMatchObject({ ok: true, diff: { announced: ["Saved 1"] } });
    expect(announcedIn((await run(["click", save])).json)).toEqual(["Saved 2"]);
  });

  test("a form's error on submit, and nothing once it is emptied again", async () => {
    const r = await run(["click", await refOf("Sign up")]);
    expect(announcedIn(r.json)).toEqual(["Enter your email"]);
    const typed = await run(["type", await refOf("Email"), "a@b.c", "--submit"]);
    expect(typed.json.ok).toBe(true);
    expect(announcedIn(typed.json)).toBeUndefined();
  });

  test("a chat log's new line, and an output's new value; not an aria-live=off region", async () => {
    expect(announcedIn((await run(["click", await refOf("Say hi")])).json)).toEqual(["hi from you"]);
    expect(announcedIn((await run(["click", await refOf("Add")])).json)).toEqual(["1"]);
  });

  test("snapshot --diff says it too; a whole snapshot lists no live text", async () => {
    await run(["snapshot"]);
    expect((await run(["eval", "toast.textContent = 'Back online'; 1"])).json.ok).toBe(true);
    expect((await run(["snapshot", "--diff"])).json).toMatchObject({ ok: true, diff: { announced: ["Back online"] } });
    expect(JSON.stringify((await run(["snapshot"])).json)).not.toContain("Back online");
  });
});
