import { expect, test } from "bun:test";
import { boundValue, MAX_EVAL_CHARS } from "./page.ts";

test("an eval value cut at its limit never ends in half an emoji", () => {
  const value = boundValue(`${"v".repeat(MAX_EVAL_CHARS - 1)}😀`.repeat(2), "string");
  expect(value.truncated).toBe(true);
  expect(value.value).toBe("v".repeat(MAX_EVAL_CHARS - 1));
  expect(boundValue("short 😀", "string")).toEqual({ value: "short 😀" });
});
