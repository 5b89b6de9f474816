import { afterAll, describe, expect, test } from "bun:test";
import { Window } from "happy-dom";
import { QUIET_SOURCE } from "./act-script.ts";

type Quiet = (win: unknown, arg: Record<string, unknown>) => unknown;
type Poll = { quietFor: number; mutations: number } | null;
const quiet = new Function(`return ${QUIET_SOURCE}`)() as Quiet;
// happy-dom delivers mutation records in a microtask, as browsers do.
const tick = () => new Promise((r) => setTimeout(r, 0));

const opened: Window[] = [];
afterAll(async () => {
  for (const w of opened) await w.happyDOM.close();
});

describe("QUIET_SOURCE", () => {
  test("counts mutations from install; quiet is timed from the first poll, not from install", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    expect(quiet(w, { op: "install", id: 1 })).toBe(true);
    await new Promise((r) => setTimeout(r, 40));
    const first = quiet(w, { op: "poll", ids: [1] }) as Poll;
    // Quiet since install, but a long dispatch must not use up the quiet period.
    expect(first?.quietFor).toBeLessThan(10);
    w.document.body.appendChild(w.document.createElement("div"));
    await tick();
    const second = quiet(w, { op: "poll", ids: [1] }) as Poll;
    expect(second?.mutations).toBe(1);
    expect(second?.quietFor).toBeLessThan(10);
    await new Promise((r) => setTimeout(r, 30));
    const third = quiet(w, { op: "poll", ids: [1], finish: true }) as Poll;
    expect(third?.quietFor).toBeGreaterThanOrEqual(25);
    expect(quiet(w, { op: "poll", ids: [1] })).toBeNull();
  });

  test("an unknown id yields null; several ids count the earliest observer", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    expect(quiet(w, { op: "poll", ids: [9] })).toBeNull();
    quiet(w, { op: "install", id: 1 });
    w.document.body.appendChild(w.document.createElement("p"));
    await tick();
    quiet(w, { op: "install", id: 2 });
    w.document.body.appendChild(w.document.createElement("p"));
    await tick();
    const r = quiet(w, { op: "poll", ids: [1, 2], finish: true }) as Poll;
    expect(r?.mutations).toBe(2);
    expect(quiet(w, { op: "poll", ids: [1, 2] })).toBeNull();
  });
});
