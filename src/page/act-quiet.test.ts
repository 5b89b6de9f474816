import { afterAll, describe, expect, test } from "bun:test";
import { Window } from "happy-dom";
import { QUIET_SOURCE } from "./act-script.ts";

type Quiet = (win: unknown, arg: Record<string, unknown>) => unknown;
const quiet = new Function(`return ${QUIET_SOURCE}`)() as Quiet;

const opened: Window[] = [];
afterAll(async () => {
  for (const w of opened) await w.happyDOM.close();
});

describe("QUIET_SOURCE", () => {
  test("counts mutations from install, and waits for quiet from the wait call", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    expect(quiet(w, { op: "install", id: 1 })).toBe(true);
    // A long dispatch: mutations well after install still count, and quiet is timed from the wait.
    await new Promise((r) => setTimeout(r, 60));
    w.document.body.appendChild(w.document.createElement("div"));
    const started = Date.now();
    const done = quiet(w, { op: "wait", ids: [1], quietMs: 25, maxMs: 400 }) as Promise<{ mutations: number }>;
    setTimeout(() => w.document.body.setAttribute("data-x", "1"), 10);
    const r = await done;
    expect(r.mutations).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  test("an unknown or already consumed id yields null; several ids count the earliest observer", async () => {
    const w = new Window({ url: "https://quiet.example/" });
    opened.push(w);
    expect(quiet(w, { op: "wait", ids: [9], quietMs: 5, maxMs: 50 })).toBeNull();
    quiet(w, { op: "install", id: 1 });
    w.document.body.appendChild(w.document.createElement("p"));
    quiet(w, { op: "install", id: 2 });
    w.document.body.appendChild(w.document.createElement("p"));
    const r = (await (quiet(w, { op: "wait", ids: [1, 2], quietMs: 5, maxMs: 200 }) as Promise<{ mutations: number }>)) ?? { mutations: -1 };
    expect(r.mutations).toBe(2);
    expect(quiet(w, { op: "wait", ids: [1, 2], quietMs: 5, maxMs: 50 })).toBeNull();
  });
});
