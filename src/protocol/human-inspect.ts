/** Human text of read, search, find, locate and dropdown (CommandDef.human). Page strings are escaped. */
import { escapeLine, quote } from "../shared/escape.ts";
import { cutString } from "../shared/page-strings.ts";
import { withNotices } from "./human.ts";

type R = Record<string, unknown>;
const list = (r: R, key: string) => (r[key] as R[] | undefined) ?? [];

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
/** Content lines of `bp read` keep their text but lose anything that could break a line or the terminal. */
const safeContent = (line: string): string => line.replace(UNSAFE, (c) => escapeLine(c));

/** `bp read` */
export const readText = withNotices((r) => {
  const text = String(r.text ?? "");
  const body = text ? text.split("\n").map(safeContent).join("\n") : "(no readable text)";
  return `${escapeLine(String(r.title), 200)}\n${escapeLine(String(r.url), 300)}\n${"─".repeat(60)}\n${body}${r.truncated ? `\n... [truncated: ${text.length} of ${String(r.length)} characters]` : ""}`;
});

/** `bp search`: matches are numbered from 1; the total comes only with a cut list. */
export const searchText = withNotices((r, a) => {
  const matches = list(r, "matches");
  const total = (r.totalMatches as number | undefined) ?? matches.length;
  const lines = [
    `${total} match${total === 1 ? "" : "es"} for ${quote(cutString(String(a.query), 500), 200)} in ${escapeLine(String(r.url), 300)}`,
  ];
  matches.forEach((m, i) => {
    lines.push(
      `[${i + 1}] <${escapeLine(String(m.tagName), 40)}> ${String(m.x)},${String(m.y)}${m.visible === false ? " (not in view)" : ""}${m.r !== undefined ? ` ref=${String(m.r)}` : ""}${m.f !== undefined ? ` frame=${String(m.f)}` : ""} ${quote(String(m.context), 500)}`,
    );
  });
  if (r.truncated)
    lines.push(`[truncated] ${matches.length} of ${total} shown; raise --limit (max 200) or narrow with --selector`);
  return lines.join("\n");
});

/** `bp find`: elements are numbered from 1; only the unusual states are named. */
export const findText = withNotices((r, a) => {
  const elements = list(r, "elements");
  const lines = elements.map((e, i) => {
    let line = `[${i + 1}] <${escapeLine(String(e.tagName), 40)}> ${escapeLine(String(e.role), 40)}`;
    if (e.name) line += ` ${quote(String(e.name))}`;
    const states = [...(e.visible === false ? ["hidden"] : []), ...(e.enabled === false ? ["disabled"] : [])];
    line += `${states.length > 0 ? ` (${states.join(", ")})` : ""} ${String(e.x)},${String(e.y)} ${String(e.width)}x${String(e.height)}`;
    if (e.r !== undefined) line += ` ref=${String(e.r)}`;
    if (e.f !== undefined) line += ` frame=${String(e.f)}`;
    for (const at of list(e, "attributes"))
      line += ` ${escapeLine(String(at.name), 40)}=${quote(String(at.value), 80)}`;
    return line;
  });
  if (lines.length === 0) lines.push(`No elements match ${quote(String(a.selector), 200)}.`);
  if (r.truncated)
    lines.push(
      `[truncated] ${elements.length} of ${String(r.total)} shown; raise --limit (max 200) or narrow the selector`,
    );
  return lines.join("\n");
});

/** `bp locate` */
export const locateText = withNotices(
  (r) =>
    `center: ${String(r.x)},${String(r.y)}  size: ${String(r.width)}x${String(r.height)}  (top:${String(r.top)} left:${String(r.left)})`,
);

/** `bp dropdown` */
export const dropdownText = withNotices((r) => {
  const lines = [`[${String(r.kind)}]${r.multiple ? " multiple" : ""}${r.requiresOpen ? " open required" : ""}`];
  for (const o of list(r, "options"))
    lines.push(
      `${o.selected ? "*" : " "} ${String(o.index)}  ${JSON.stringify(o.label).slice(1, -1)}${o.value !== undefined ? `  value=${JSON.stringify(o.value)}` : ""}${o.disabled ? "  (disabled)" : ""}`,
    );
  return lines.join("\n");
});
