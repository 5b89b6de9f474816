/**
 * Page-derived strings in human output are hostile input: escaped with JSON-string rules (quotes, backslashes, control
 * characters, line and paragraph separators, bidi controls) and capped, so a page can never start a new line or forge
 * an entry.
 */
const HEX = "0123456789abcdef";

/** Escape a page-derived string for a single human-output line (no surrounding quotes). */
export function escapeLine(value: string, max = 120): string {
  let s = value.length > max ? value.slice(0, max) : value;
  const last = s.charCodeAt(s.length - 1);
  if (s !== value && last >= 0xd800 && last <= 0xdbff) s = s.slice(0, -1);
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    const c = s.charCodeAt(i);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (
      c < 0x20 ||
      (c >= 0x7f && c <= 0x9f) ||
      c === 0x2028 ||
      c === 0x2029 ||
      (c >= 0x200b && c <= 0x200f) ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2066 && c <= 0x2069) ||
      c === 0xfeff
    ) {
      out +=
        "\\u" + HEX.charAt((c >> 12) & 15) + HEX.charAt((c >> 8) & 15) + HEX.charAt((c >> 4) & 15) + HEX.charAt(c & 15);
    } else out += ch;
  }
  return value.length > max ? out + "…" : out;
}

/** A quoted, escaped page string. */
export function quote(value: string, max = 120): string {
  return `"${escapeLine(value, max)}"`;
}
