/**
 * JSON.stringify leaves U+2028, U+2029 and the C1 controls (U+0085 is "next line") raw, and
 * many line readers (Python's splitlines, some log shippers) split on them. Output is one
 * line per reply, so these are written as \u escapes: still the same JSON value.
 */
const LINE_BREAKERS = /[\u0080-\u009f\u2028\u2029]/g;
const HAS_LINE_BREAKER = /[\u0080-\u009f\u2028\u2029]/;

export function jsonLine(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  // All ASCII (the usual reply) has none of them: a CLI call then never compiles the
  // expression (~0.1 ms), and the broker skips the scan.
  if (Buffer.byteLength(text) === text.length) return text;
  return HAS_LINE_BREAKER.test(text) ? text.replace(LINE_BREAKERS, escapeChar) : text;
}

function escapeChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
