import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireChromium } from "../support/chromium.ts";
import { makeBpEnv, waitFor, type BpResult } from "../support/bp.ts";
import { startFixtureServer } from "../support/fixture-server.ts";

requireChromium();

/** Every widget that a hidden (background) tab breaks, on one page; the frame is cross-origin. */
const pages = (b: () => string): Record<string, string | (() => string)> => ({
  "/live": () => `<!doctype html><title>Live</title>
    <iframe style="width:400px;height:80px" src="${b()}/live-inner"></iframe>
    <button id=tip onmouseenter="document.getElementById('t').hidden = false">Hover me</button><div id=t hidden>Tip text</div>
    <div id=src draggable=true role=button aria-label="Drag source" style="width:60px;height:30px;background:#ccc">drag</div>
    <div id=dst role=button aria-label="Drop zone" style="width:120px;height:60px;border:1px solid">drop here</div>
    <button id=grow onclick="document.getElementById('panel').classList.add('open')">Grow</button>
    <div id=panel><p>Panel body</p></div>
    <style>#panel { height: 0; overflow: hidden; transition: height 200ms } #panel.open { height: 60px }</style>
    <div style="height:3000px">tall</div>
    <script>
      document.getElementById("panel").addEventListener("transitionend", () => { document.body.dataset.grown = "yes"; });
      document.getElementById("src").ondragstart = (e) => e.dataTransfer.setData("text/plain", "payload");
      const dst = document.getElementById("dst");
      dst.ondragover = (e) => e.preventDefault();
      dst.ondrop = (e) => { e.preventDefault(); dst.textContent = "dropped " + e.dataTransfer.getData("text/plain"); };
    </script>`,
  "/live-inner": `<!doctype html><title>Inner</title><button onclick="this.textContent = 'Frame clicked'">Frame button</button>`,
  "/plain": `<!doctype html><title>Plain</title><p>plain</p>`,
});

const site = startFixtureServer(pages(() => site.b));
const env = makeBpEnv();
const out = mkdtempSync(join(tmpdir(), "bp-visible-"));
const AGENTS = ["oldest", "middle", "newest"];

type El = { r: number; n?: string; f?: string };
const ref = (els: El[], name: string): string => String(els.find((e) => e.n === name)?.r ?? "missing");
const evidence = (r: BpResult) => r.json.evidence as { status?: string; effects?: string[] };

beforeAll(async () => {
  expect((await env.run(["launch", "--headless"])).json.ok).toBe(true);
});
afterAll(async () => {
  await env.cleanup();
  site.stop();
});

describe("every managed tab stays a live, visible page", () => {
  test("three agents, each with its own tab: all visible, and the oldest one still works fully", async () => {
    expect((await env.run(["open", `${site.a}/live`, "--new"], { key: AGENTS[0] })).json.ok).toBe(true);
    for (const key of AGENTS.slice(1))
      expect((await env.run(["open", `${site.a}/plain`, "--new"], { key })).json.ok).toBe(true);
    for (const key of AGENTS)
      expect((await env.run(["eval", "document.visibilityState"], { key })).json.value).toBe("visible");

    const key = AGENTS[0];
    const els = (await env.run(["snapshot"], { key })).json.elements as El[];
    const frameClick = await env.run(["click", ref(els, "Frame button")], { key });
    expect(frameClick.json.ok).toBe(true);
    const after = (await env.run(["snapshot"], { key })).json.elements as El[];
    expect(after.some((e) => e.n === "Frame clicked" && e.f !== undefined)).toBe(true);

    const hover = await env.run(["hover", ref(els, "Hover me")], { key });
    expect(evidence(hover).status).toBe("verified");
    expect((await env.run(["eval", "document.getElementById('t').hidden"], { key })).json.value).toBe(false);

    const drag = await env.run(["drag", ref(els, "Drag source"), ref(els, "Drop zone")], { key });
    expect(evidence(drag).status).toBe("verified");
    expect((await env.run(["eval", "document.getElementById('dst').textContent"], { key })).json.value).toBe(
      "dropped payload",
    );

    expect((await env.run(["click", ref(els, "Grow")], { key })).json.ok).toBe(true);
    await waitFor(
      async () => (await env.run(["eval", "document.body.dataset.grown"], { key })).json.value === "yes",
      5_000,
      "transition end",
    );

    const shot = await env.run(["--timeout", "15000", "screenshot", "--full", join(out, "full.png")], { key });
    expect(shot.json).toMatchObject({ ok: true });
    expect(Number(shot.json.height)).toBeGreaterThan(3000);
    expect(statSync(join(out, "full.png")).size).toBeGreaterThan(0);
  });
});
