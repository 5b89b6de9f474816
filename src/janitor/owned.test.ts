import { describe, expect, test } from "bun:test";
import { OwnedTargets } from "./owned.ts";

describe("OwnedTargets", () => {
  test("adopts popups only through an owned opener chain, closes deepest first", () => {
    const o = new OwnedTargets();
    o.own("A");
    expect(o.maybeAdoptPopup("B", "A")).toBe(true);
    expect(o.maybeAdoptPopup("C", "B")).toBe(true);
    expect(o.maybeAdoptPopup("U2", "USER")).toBe(false);
    expect(o.maybeAdoptPopup("X", undefined)).toBe(false);
    expect(o.closingOrder()).toEqual(["C", "B", "A"]);
    o.forget("B");
    expect(o.has("B")).toBe(false);
    expect(o.closingOrder()).toEqual(["C", "A"]);
  });

  test("never adopts the same target twice or past the cap", () => {
    const o = new OwnedTargets();
    o.own("A");
    expect(o.maybeAdoptPopup("A", "A")).toBe(false);
    for (let i = 0; i < OwnedTargets.MAX + 10; i++) o.own(`t${i}`);
    expect(o.size).toBe(OwnedTargets.MAX);
  });
});
