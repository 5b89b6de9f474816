import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, waitFor, type BpResult } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

// A target inside a frame settles in that frame too (docs/actions.md "Settling"): its
// animations and its later renders are the page's answer as much as the top document's.
// An accordion that opens with a 400 ms height transition; its end is timed on the clock the
// test reads too (what a transitionend listener changes is not waited for, docs/actions.md).
const ACCORDION = `<!doctype html><title>Accordion</title>
  <style>#panel { height: 0; overflow: hidden; transition: height 400ms linear; } #panel.open { height: 60px; }</style>
  <button onclick="document.getElementById('panel').classList.add('open')">Open section</button>
  <div id=panel><p>Section text</p></div>
  <script>document.getElementById('panel').addEventListener('transitionend', () => { window.endedAt = Date.now(); });</script>`;
// A click handler that renders on a timer chain: at 10, 40 and 70 ms (a page that keeps
// changing after the dispatch must be quiet for 50 ms).
const STEPS = `<!doctype html><title>Steps</title>
  <button onclick="for (const [i, t] of [10, 40, 70].entries()) setTimeout(() => { const b = document.createElement('button'); b.textContent = 'Step ' + (i + 1); document.body.append(b); }, t)">Render steps</button>`;
const site = startFixtureServer({
  "/accordion": ACCORDION,
  "/steps": STEPS,
  "/framed-accordion-same": `<!doctype html><title>Framed</title><button>Top</button><iframe src="/accordion" width=400 height=200></iframe>`,
  "/framed-accordion-cross": () =>
    `<!doctype html><title>Framed</title><button>Top</button><iframe src="${site.b}/accordion" width=400 height=200></iframe>`,
  "/framed-steps-same": `<!doctype html><title>Framed</title><button>Top</button><iframe src="/steps" width=400 height=200></iframe>`,
  "/framed-steps-cross": () =>
    `<!doctype html><title>Framed</title><button>Top</button><iframe src="${site.b}/steps" width=400 height=200></iframe>`,
});
const env = makeBpEnv();
const KEY = "agent-settle-frame-anim";
const run = (args: string[]) => env.run(args, { key: KEY });

type El = { r: number; n?: string };
const evidence = (r: BpResult) => r.json.evidence as { status?: string; effects?: string[] };
const added = (r: BpResult) => ((r.json.diff as { added?: El[] } | undefined)?.added ?? []).map((e) => e.n ?? "");
const refOf = async (name: string): Promise<string> => {
  const els = await waitFor(
    async () => {
      const list = (await run(["snapshot"])).json.elements as El[] | undefined;
      return list?.some((e) => e.n === name) ? list : undefined;
    },
    10_000,
    `an element named ${name}`,
  );
  return String(els?.find((e) => e.n === name)?.r);
};

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
  expect((await run(["open", `${site.a}/accordion`, "--new"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("a click on a target inside a frame settles in that frame", () => {
  for (const [where, page] of [
    ["the top document", "/accordion"],
    ["a same-origin frame", "/framed-accordion-same"],
    ["a cross-origin frame", "/framed-accordion-cross"],
  ]) {
    test(`in ${where}: an accordion's 400 ms height transition has ended in the reply`, async () => {
      expect((await run(["open", `${site.a}${page}`])).json.ok).toBe(true);
      const r = await run(["click", await refOf("Open section")]);
      const replied = Date.now();
      expect(evidence(r)).toMatchObject({ status: "verified" });
      // The transition ended before the reply came (read in the accordion's own document).
      if (page !== "/accordion") expect((await run(["frame", "1"])).json.ok).toBe(true);
      const ended = await run(["eval", "window.endedAt ?? null"]);
      if (page !== "/accordion") expect((await run(["frame", "0"])).json.ok).toBe(true);
      expect(typeof ended.json.value).toBe("number");
      expect(ended.json.value as number).toBeLessThanOrEqual(replied);
    });
  }

  for (const [where, page] of [
    ["the top document", "/steps"],
    ["a same-origin frame", "/framed-steps-same"],
    ["a cross-origin frame", "/framed-steps-cross"],
  ]) {
    test(`in ${where}: a render the click's timers step on until 70 ms later is in the reply`, async () => {
      expect((await run(["open", `${site.a}${page}`])).json.ok).toBe(true);
      const r = await run(["click", await refOf("Render steps")]);
      // The whole reply on failure: a click the frame did not receive reads differently from an early settle.
      expect(added(r), r.stdout).toEqual(expect.arrayContaining(["Step 1", "Step 2", "Step 3"]));
    });
  }
});
