/** Human text of the network, storage, state, trace, pointer and record commands (CommandDef.human). */
import { type Formatter, withNotices } from "./human.ts";

type R = Record<string, unknown>;
const list = (r: R, key: string) => (r[key] as R[] | undefined) ?? [];

/** `bp net` */
export const netText = withNotices((r) => {
  const lines = list(r, "requests").map(
    (e) =>
      `${String(e.id).padStart(4)} ${String(e.method ?? "GET").padEnd(6)} ${String(e.status ?? e.error ?? "…").padEnd(6)} ${String(e.type).padEnd(10)} ${e.time !== undefined ? `${String(e.time)}ms`.padStart(7) : "".padStart(7)} ${String(e.url)}`,
  );
  if (r.gap) lines.unshift("(older requests after your cursor were dropped from the journal)");
  if (lines.length === 0) lines.push("No requests recorded.");
  return lines.join("\n");
});

/** `bp net show` */
export const netShowText = withNotices((r, a) => {
  const e = r.request as R | undefined;
  if (!e) return `✓ Body of request ${String(a.id)} saved to ${String(r.file)} (${String(r.sizeBytes)} bytes)`;
  const lines = [
    `${String(e.method ?? "GET")} ${String(e.url)}`,
    `status: ${String(e.status ?? e.error ?? "pending")}  type: ${String(e.type)}${e.rule ? `  rule: ${String(e.rule)}` : ""}`,
  ];
  for (const [k, v] of Object.entries((e.responseHeaders as R | undefined) ?? {})) lines.push(`  ${k}: ${String(v)}`);
  if (r.body !== undefined) lines.push("", String(r.body), ...(r.bodyTruncated ? ["… [truncated]"] : []));
  return lines.join("\n");
});

/** `bp net block|mock|headers`: the pattern is the one given, trimmed as the broker keeps it. */
export const ruleText = (type: "block" | "mock" | "headers"): Formatter =>
  withNotices((r, a) => `✓ Rule ${String((r.rule as R).id)}: ${type} ${String(a.pattern).trim()}`);

/** `bp console` */
export const consoleText = withNotices((r) => {
  const lines = list(r, "messages").map(
    (m) =>
      `${String(m.id).padStart(4)} ${String(m.level).padEnd(7)} ${String(m.text)}${m.source ? `  (${String(m.source)})` : ""}`,
  );
  if (r.gap) lines.unshift("(older messages after your cursor were dropped from the log)");
  if (lines.length === 0) lines.push("No console messages.");
  return lines.join("\n");
});

/** `bp cookies` */
export const cookiesText = withNotices((r, a) => {
  const shown = list(r, "cookies");
  return shown.length === 0
    ? "No cookies."
    : shown
        .map(
          (c) =>
            `${String(c.name)}${a.values ? `=${String(c.value)}` : ` (${String(c.valueLength)} chars)`}  ${String(c.domain)}${String(c.path)}${c.httpOnly ? "  HttpOnly" : ""}${c.secure ? "  Secure" : ""}${c.sameSite ? `  SameSite=${String(c.sameSite)}` : ""}`,
        )
        .join("\n");
});

/** `bp auth` */
export const authText = withNotices((r, a) =>
  r.auth === "cleared"
    ? "✓ HTTP credentials cleared"
    : `✓ HTTP credentials set for ${String(a.username)} (this agent's tabs only)`,
);

/** `bp storage` */
export const storageText = withNotices((r, a) => {
  const area = String(a.area ?? "local");
  const op = String(a.op ?? "list");
  const items = r.items as R[] | undefined;
  if (items)
    return items.length === 0
      ? `No ${area}Storage items for ${String(r.origin)}.`
      : items.map((i) => `${String(i.key)} = ${String(i.value)}${i.length !== undefined ? "…" : ""}`).join("\n");
  if (op === "get") return r.value === null ? `(no ${String(a.key ?? "")})` : String(r.value);
  return `✓ ${op} ${area}Storage of ${String(r.origin)}`;
});

/** `bp state save` */
export const stateSaveText = withNotices(
  (r, a) =>
    `✓ State '${String(a.name)}' saved: ${String(r.cookies)} cookie(s), ${String(r.items)} localStorage item(s) of ${(r.origins as string[]).join(", ")}`,
);

/** `bp state load` */
export const stateLoadText = withNotices(
  (r, a) =>
    `✓ State '${String(a.name)}' loaded: ${String(r.cookies)} cookie(s), ${String(r.items)} localStorage item(s)`,
);

/** `bp state remove` */
export const stateRemoveText = withNotices((_r, a) => `✓ State '${String(a.name)}' removed`);

/** `bp trace stop`: the traced tab comes in human mode only. */
export const traceStopText = withNotices(
  (r) =>
    `✓ Trace of ${String(r.tab)} written to ${String(r.file)} (${String(r.events)} events, ${String(r.sizeBytes)} bytes)`,
);

/** `bp download`: a bare number is upstream's index form (1 is dl1). */
export const downloadText = withNotices((r, a) => {
  const given = String(a.id);
  const id = r.id ?? (/^\d+$/.test(given) ? `dl${given}` : given);
  return `✓ Download ${String(id)} saved to ${String(r.file)} (${String(r.sizeBytes)} bytes)`;
});

/** `bp mouse` */
export const mouseText = withNotices((r, a) => {
  const held = r.buttons as string[] | undefined;
  return `✓ mouse ${String(a.action)} at ${String(r.x)},${String(r.y)}${held ? ` (held: ${held.join(", ")})` : ""}`;
});

/** `bp commands`: with one status asked for, the records leave it out. */
export const commandsText = withNotices((r, a) => {
  const records = list(r, "commands");
  return records.length === 0
    ? "No recent commands."
    : records
        .map(
          (c) =>
            `${String(c.id)}  ${String(c.status ?? a.status).padEnd(15)} ${String(c.method)}${c.cancellationRequested ? "  (cancellation requested)" : ""}`,
        )
        .join("\n");
});

/** `bp wait`: the condition is the one argument the command's rules allow. */
export const waitText = withNotices((r, a) => {
  const kind =
    a.url !== undefined
      ? "url"
      : a.text !== undefined
        ? "text"
        : a.selector !== undefined
          ? "selector"
          : a.dialog
            ? "dialog"
            : a.popup
              ? "popup"
              : a.download
                ? "download"
                : "network-idle";
  return `✓ ${kind} after ${String(r.elapsedMs)} ms${r.matched ? `  ${JSON.stringify(r.matched)}` : ""}`;
});
