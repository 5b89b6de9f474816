import { describe, expect, test } from "bun:test";
import { OpenIds } from "./ends.ts";

describe("a frame session's open request ids", () => {
  test("stay bounded for a long-lived frame whose requests Chrome never ends: ended ones go first, then the oldest", () => {
    const open = new Set<string>();
    const ids = new OpenIds((id) => open.has(id), 10);
    // A polling widget: most of its ids end elsewhere (never on this session), a few stay open.
    for (let i = 0; i < 1000; i++) {
      if (i % 100 === 0) open.add(String(i));
      ids.add(String(i));
    }
    expect(ids.size).toBeLessThanOrEqual(10);
    // Every request still open is kept over the ended ones (ten of them, within the bound).
    expect([...ids].filter((id) => open.has(id)).sort()).toEqual([...open].sort());
    // Past the bound with every id open, the oldest go.
    const all = new OpenIds(() => true, 3);
    for (const id of ["a", "b", "c", "d", "e"]) all.add(id);
    expect([...all]).toEqual(["c", "d", "e"]);
  });

  test("an id ended on its session leaves at once", () => {
    const ids = new OpenIds(() => true);
    ids.add("1");
    ids.add("2");
    ids.delete("1");
    expect([...ids]).toEqual(["2"]);
  });
});
