import { expect, test } from "bun:test";
import { camel } from "./options.ts";
import { BpError } from "../shared/errors.ts";
import { isDecimal, parseCommandLine } from "./parse.ts";

// The CLI's hot path writes these expressions out by hand; each must say what the expression says.
test("isDecimal is -?\\d+(\\.\\d+)?", () => {
  for (const s of [
    "",
    "-",
    "1",
    "-1",
    "12.5",
    "-0.25",
    "1.",
    ".5",
    "1.2.3",
    "--1",
    "1e3",
    "0x1",
    "١",
    "1 ",
    " 1",
    "+1",
    "1-",
    "00",
  ]) {
    expect([s, isDecimal(s)]).toEqual([s, /^-?\d+(\.\d+)?$/.test(s)]);
  }
});

test("camel is the replacement of -([a-z])", () => {
  for (const s of [
    "limit",
    "to-text",
    "client-key",
    "password-stdin",
    "a--b",
    "a-B",
    "a-1",
    "trailing-",
    "-lead",
    "x-y-z",
  ]) {
    expect(camel(s)).toBe(s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()));
  }
});

test("a number beyond the largest safe integer is invalid_argument echoing the input, never rounded", () => {
  let err: unknown;
  try {
    parseCommandLine(["click", "99999999999999999999"]);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(BpError);
  expect((err as BpError).toJSON()).toMatchObject({
    code: "invalid_argument",
    context: { field: "ref", received: "99999999999999999999" },
  });
  expect((err as BpError).message).toContain("99999999999999999999");
  expect(parseCommandLine(["click", "9007199254740991"]).args).toEqual({ ref: 9007199254740991 });
});
