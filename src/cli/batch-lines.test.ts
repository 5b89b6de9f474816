import { expect, test } from "bun:test";
import { BpError } from "../shared/errors.ts";
import { MAX_BATCH_STEPS } from "../protocol/commands-tools.ts";
import { MAX_STEPS } from "./batch.ts";
import { batchLines, shellWords } from "./batch-lines.ts";

function failure(fn: () => unknown): Record<string, unknown> | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof BpError) return { code: err.code, ...err.context };
    throw err;
  }
  return undefined;
}

test("shell words: quotes, escapes and runs of blanks as a POSIX shell splits them, nothing expanded", () => {
  expect(shellWords(`type 7 "Ada Lovelace" --submit`, 1)).toEqual(["type", "7", "Ada Lovelace", "--submit"]);
  expect(shellWords(`eval 'document.querySelector("a").href'`, 1)).toEqual([
    "eval",
    'document.querySelector("a").href',
  ]);
  expect(shellWords(`type 3 "say \\"hi\\" \\$HOME \\n"`, 1)).toEqual(["type", "3", 'say "hi" $HOME \\n']);
  expect(shellWords(`type 3 a\\ b''c "" $HOME`, 1)).toEqual(["type", "3", "a bc", "", "$HOME"]);
  expect(shellWords("  click \t 4  ", 1)).toEqual(["click", "4"]);
});

test("lines: comments and blanks skipped, JSON arrays taken as words, a leading bp dropped, line numbers kept", () => {
  const lines = batchLines(`# setup\n\nbp open example.com\r\n["type", 7, "x y"]\n  snapshot  \n`, 10);
  expect(lines).toEqual([
    { line: 3, words: ["open", "example.com"] },
    { line: 4, words: ["type", "7", "x y"] },
    { line: 5, words: ["snapshot"] },
  ]);
});

test("malformed lines name their line and a parser code", () => {
  expect(failure(() => batchLines(`eval 1\nclick "3\n`, 10))).toMatchObject({
    code: "invalid_argument",
    field: "batch",
    line: 2,
    parserCode: "bad_quoting",
  });
  expect(failure(() => batchLines(`eval 'x\n`, 10))).toMatchObject({ line: 1, parserCode: "bad_quoting" });
  expect(failure(() => batchLines(`eval x\\`, 10))).toMatchObject({ line: 1, parserCode: "bad_quoting" });
  expect(failure(() => batchLines(`["eval", {"a": 1}]`, 10))).toMatchObject({ line: 1, parserCode: "bad_json" });
  expect(failure(() => batchLines(`[eval]`, 10))).toMatchObject({ line: 1, parserCode: "bad_json" });
  expect(failure(() => batchLines("# nothing\n\n", 10))).toMatchObject({ field: "batch", parserCode: "empty_batch" });
  expect(failure(() => batchLines("a\nb\nc\n", 2))).toMatchObject({ line: 3, parserCode: "too_many_steps" });
});

test("the CLI's step limit is the one the command's definition states", () => {
  expect(MAX_STEPS).toBe(MAX_BATCH_STEPS);
});
