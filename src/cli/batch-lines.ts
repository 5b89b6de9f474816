import { invalidArgument } from "../shared/errors.ts";

/** What a batch takes from stdin at most: enough for any real script, bounded for a runaway pipe. */
export const MAX_BATCH_BYTES = 1024 * 1024;

export interface BatchLine {
  /** 1-based line number in the input. */
  line: number;
  words: string[];
}

/**
 * A batch's lines as argv words: blank lines and `#` comments are skipped; a line starting
 * with `[` is a JSON array of strings (numbers and booleans taken as their text), any other
 * is split as a POSIX shell would (quotes, backslashes; no expansion). A leading `bp` is dropped.
 */
export function batchLines(input: string, maxSteps: number): BatchLine[] {
  const out: BatchLine[] = [];
  const lines = input.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? "").replace(/\r$/, "");
    const text = raw.trim();
    if (text === "" || text.startsWith("#")) continue;
    const words = text.startsWith("[") ? jsonWords(text, i + 1) : shellWords(text, i + 1);
    if (words[0] === "bp") words.shift();
    if (words.length === 0) continue;
    out.push({ line: i + 1, words });
    if (out.length > maxSteps)
      throw invalidArgument("batch", `A batch runs at most ${maxSteps} commands; split it.`, {
        line: i + 1,
        parserCode: "too_many_steps",
      });
  }
  if (out.length === 0)
    throw invalidArgument(
      "batch",
      "No commands on stdin: give one per line, e.g. printf 'snapshot\\nclick 3\\n' | bp batch.",
      { parserCode: "empty_batch" },
    );
  return out;
}

function jsonWords(text: string, line: number): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidArgument("batch", `Line ${line}: not a JSON array of strings.`, { line, parserCode: "bad_json" });
  }
  if (
    !Array.isArray(parsed) ||
    !parsed.every((w) => typeof w === "string" || typeof w === "number" || typeof w === "boolean")
  ) {
    throw invalidArgument("batch", `Line ${line}: not a JSON array of strings.`, { line, parserCode: "bad_json" });
  }
  return parsed.map(String);
}

/** POSIX shell word splitting without expansion: '…' is literal, "…" takes \\ \" \$ \` escapes, \\x outside quotes is x. */
export function shellWords(text: string, line: number): string[] {
  const words: string[] = [];
  let cur: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === " " || c === "\t") {
      if (cur !== undefined) words.push(cur);
      cur = undefined;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw unterminated(line, "'");
      cur = (cur ?? "") + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let s = "";
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        const d = text[j] as string;
        const n = text[j + 1];
        if (d === "\\" && n !== undefined && '\\"$`'.includes(n)) {
          s += n;
          j++;
        } else s += d;
      }
      if (j >= text.length) throw unterminated(line, '"');
      cur = (cur ?? "") + s;
      i = j;
    } else if (c === "\\") {
      if (i + 1 >= text.length)
        throw invalidArgument("batch", `Line ${line}: a backslash ends the line (one command per line).`, {
          line,
          parserCode: "bad_quoting",
        });
      cur = (cur ?? "") + text[i + 1];
      i++;
    } else cur = (cur ?? "") + c;
  }
  if (cur !== undefined) words.push(cur);
  return words;
}

function unterminated(line: number, quote: string) {
  return invalidArgument("batch", `Line ${line}: unterminated ${quote} quote (one command per line).`, {
    line,
    parserCode: "bad_quoting",
  });
}
