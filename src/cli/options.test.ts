import { describe, expect, test } from "bun:test";
import { splitArgs, type OptionSpec } from "./options.ts";

const specs: OptionSpec[] = [
  { name: "help", kind: "boolean", alias: "h" },
  { name: "limit", kind: "string", alias: "l" },
  { name: "clear", kind: "boolean", alias: "c" },
  { name: "submit", kind: "boolean", alias: "s" },
  { name: "client-key", kind: "string" },
];
const split = (...argv: string[]) => splitArgs(argv, specs);

describe("splitArgs: the option grammar bp accepts", () => {
  test("a value option takes the next word whatever it is, or its =value, or '' at the end", () => {
    expect(split("snapshot", "--limit", "-5").values).toEqual({ limit: "-5" });
    expect(split("--limit=a=b").values).toEqual({ limit: "a=b" });
    expect(split("--limit=").values).toEqual({ limit: "" });
    expect(split("--limit").values).toEqual({ limit: "" });
    expect(split("--limit", "--").values).toEqual({ limit: "--" });
  });

  test("flags: =false is false, any other value true; --no-x is false and wins wherever it stands", () => {
    expect(split("--clear=false", "--submit=yes").values).toEqual({ clear: false, submit: true });
    expect(split("--no-clear", "--clear").values).toEqual({ clear: false });
    // Taken out first, so it is never another option's value.
    expect(split("--limit", "--no-clear", "7").values).toEqual({ limit: "7", clear: false });
  });

  test("short aliases: alone, grouped, with the value attached or next", () => {
    expect(split("-cs").values).toEqual({ clear: true, submit: true });
    expect(split("-l7").values).toEqual({ limit: "7" });
    expect(split("-cl", "9").values).toEqual({ clear: true, limit: "9" });
    expect(split("--l", "3", "--h").values).toEqual({ limit: "3", help: true });
  });

  test("camelCase names are the same option; the last of a repeated option wins", () => {
    expect(split("--clientKey", "a", "--client-key=b").values).toEqual({ "client-key": "b" });
  });

  test("-- ends the options, a lone - is a word, unknown options are kept for the error", () => {
    expect(split("eval", "--", "-1", "--json")).toEqual({ values: {}, positionals: ["eval", "-1", "--json"] });
    expect(split("type", "-", "x").positionals).toEqual(["type", "-", "x"]);
    const odd = split("--bogus", "-x", "--what=1", "--no-such");
    expect({ ...odd.values }).toEqual({ bogus: true, x: true, what: "1", such: false });
  });

  test("an option named like an Object property is a plain key, not the prototype", () => {
    const { values } = split("--constructor", "--toString=1");
    expect(Object.getPrototypeOf(values)).toBeNull();
    expect({ ...values }).toEqual({ constructor: true, toString: "1" });
  });
});
