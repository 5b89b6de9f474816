import { cutString } from "../shared/page-strings.ts";

/**
 * Human text for a result. Page-derived strings (titles, URLs) go through `clean` so a page
 * cannot forge lines or terminal escapes in what a person or agent reads.
 */
export function clean(value: unknown, max = 200): string {
  const s = String(value ?? "")
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

type R = Record<string, unknown>;
/** A command's result as a person reads it (CommandDef.human), with the arguments the call was given. */
export type Formatter = (r: R, args: R) => string | undefined;

/** `bp status` */
export const statusText: Formatter = (r) => {
  const service = r.service as R;
  const browser = r.browser as R;
  const session = r.session as R;
  const recovery = r.recovery as R | undefined;
  const lines = [
    `Browser Pilot ${String(service.version)} (${String(service.target)}): broker ${String(service.state)}`,
  ];
  lines.push(
    browser.product
      ? `Browser: ${clean(browser.product)} (${String(browser.source)}, generation ${String(browser.generation)})`
      : "Browser: disconnected",
  );
  if (session.state === "active") {
    const sel = session.selectedTab as R | null | undefined;
    lines.push(
      `Agent: ${String(session.tabs ?? 0)} tab(s)${sel ? `; selected ${String(sel.id)} ${clean(sel.url)}` : ""}`,
    );
  }
  for (const h of (r.humanControl as R[] | undefined) ?? [])
    lines.push(
      `Human control: ${String(h.tab)} until ${String(h.until)}${h.yours ? " (handed off by you)" : ""}${h.message ? `: ${clean(h.message, 120)}` : ""}`,
    );
  for (const b of (r.browsers as R[] | undefined) ?? []) lines.push(browserLine(b));
  const policy = r.policy as R | undefined;
  if (policy) {
    const parts = [
      policy.deny ? `deny ${(policy.deny as string[]).join(", ")}` : "",
      policy.allow !== undefined ? `${String(policy.allow)} allowed origin pattern(s)` : "",
      policy.block !== undefined ? `${String(policy.block)} denied origin pattern(s)` : "",
      policy.tabAccess ? "own tabs only" : "",
      policy.uploadDirs !== undefined ? `uploads from ${String(policy.uploadDirs)} dir(s)` : "",
      policy.downloads !== undefined
        ? `downloads ${policy.downloads === "off" ? "off" : `up to ${String(policy.downloads)} bytes`}`
        : "",
    ].filter(Boolean);
    lines.push(`Host policy ${String(policy.digest)}${parts.length > 0 ? `: ${parts.join("; ")}` : ""}`);
  }
  if (recovery?.required) lines.push(`action: ${String(recovery.action ?? recovery.code)}`);
  return lines.join("\n");
};

/** `bp browsers` */
export const browsersText: Formatter = (r) => {
  const list = r.browsers as R[];
  return list.length === 0 ? "No installed supported browsers found." : list.map(browserLine).join("\n");
};

/** `bp connect` */
export const connectText: Formatter = (r) =>
  `✓ Connected to ${clean((r.browser as R).product)}${r.reused ? " (already connected)" : ""}` +
  (r.profileSelectionRequired
    ? `\n${(r.profiles as R[]).length} profiles are open: 'bp profiles', then 'bp profile <id>' before 'open --new'`
    : "");

/** `bp launch` */
export const launchText: Formatter = (r) =>
  `✓ ${r.reused ? "Reusing" : "Launched"} ${clean((r.browser as R).product)}${r.headless === true ? " (headless)" : r.headless === false ? " (with a window)" : ""}`;

/** `bp disconnect` */
export const disconnectText: Formatter = (r) =>
  `✓ Disconnected${r.brokerStopped ? "; broker stopped" : typeof r.message === "string" ? `; ${r.message}` : ""}`;

/** `bp tabs` */
export const tabsText: Formatter = (r) => {
  const list = r.tabs as R[];
  if (list.length === 0) return "No controllable tabs open.";
  return list
    .map(
      (t) =>
        `${t.selected ? "*" : " "} ${String(t.id).padEnd(4)} ${String(t.origin).padEnd(13)} ${String(t.control).padEnd(10)} ${clean(t.url, 80)}  ${clean(t.title, 60)}`,
    )
    .join("\n");
};

/** `bp profiles` */
export const profilesText: Formatter = (r) => {
  const list = r.profiles as R[];
  if (list.length === 0) return "No open profile reports itself; new tabs go to the browser's default.";
  return list.map(profileLines).join("\n");
};

/** `bp profile` */
export const profileText: Formatter = (r) =>
  `✓ New tabs of this agent go to ${
    profileLines(r.profile as R)
      .split("\n")[0]
      ?.slice(2) ?? ""
  }`;

/** `bp tab` */
export const tabText: Formatter = (r) => `✓ Selected ${clean((r.tab as R).url)}  ${clean((r.tab as R).title, 80)}`;

/** `bp tab release` */
export const tabReleaseText: Formatter = (r) => `✓ Released${r.released !== undefined ? ` ${String(r.released)}` : ""}`;

/** `bp open`'s line (with --snapshot, src/protocol/human-snapshot.ts lists the page after it). */
export const openLine: Formatter = (r) =>
  `✓ ${r.tab !== undefined ? `Opened ${String(r.tab)}` : "Navigated"}${r.url !== undefined ? ` ${clean(r.url)}` : ""}  ${clean(r.title, 80)}${dialogLine(r)}`;

/** `bp close` */
export const closeText: Formatter = (r) =>
  `✓ Closed ${(r.closed as string[]).length} tab(s); ${String(r.remaining)} remaining`;

/** `bp eval` */
export const evalText: Formatter = (r) =>
  typeof r.hint === "string" && r.dialog !== undefined
    ? r.hint
    : (typeof r.value === "string" ? r.value : (JSON.stringify(r.value, null, 2) ?? String(r.value))) +
      (r.truncated ? "\n... [truncated]" : "");

/** `bp handoff` */
export const handoffText: Formatter = (r) =>
  r.control === "automation"
    ? `✓ ${String(r.tab)} is back under automation`
    : `✓ ${String(r.tab)} is with a person${r.control === "draining" ? " once running commands finish" : ""} until ${String(r.until)}${r.hint ? `\nhint: ${String(r.hint)}` : ""}`;

/** `bp handback` */
export const handbackText: Formatter = (r) => `✓ ${String(r.tab)} is back under automation`;

/** `bp view` */
export const viewText: Formatter = (r) => `Viewer for ${String(r.tab)} (open once, keep private): ${String(r.url)}`;

/** `bp schema` */
export const schemaText: Formatter = (r) => JSON.stringify({ args: r.args, result: r.result }, null, 2);

/** `bp back`, `bp forward` and `bp reload`. */
export const historyText =
  (nav: "back" | "forward" | "reload"): Formatter =>
  (r) =>
    r.navigated === false
      ? `No ${nav} entry; nothing changed`
      : `✓ ${[r.url !== undefined ? clean(r.url) : "", r.title !== undefined ? clean(r.title, 80) : ""].filter(Boolean).join("  ") || "same page"}${dialogLine(r)}`;

/** A dialog the page opened while loading: the load waits on it. */
function dialogLine(r: R): string {
  const d = r.dialog as R | undefined;
  return d
    ? `\nThe page opened ${String(d.type)} dialog ${String(d.id)} ("${clean(d.message, 120)}") while loading; answer with 'bp dialog ${String(d.id)} --accept|--dismiss'.`
    : "";
}

function profileLines(p: R): string {
  const who = [p.name, p.email].filter((x) => x !== undefined).map((x) => clean(x, 80));
  const head = `${p.selected ? "*" : " "} ${String(p.id)}  ${clean(p.label)}${who.length ? `  ${who.join(" ")}` : ""}  ${String(p.tabCount)} tab(s)`;
  const tabs = ((p.tabs as R[] | undefined) ?? []).map(
    (t) => `    ${String(t.id).padEnd(4)} ${clean(t.url, 80)}  ${clean(t.title, 60)}`,
  );
  return [head, ...tabs].join("\n");
}

function browserLine(b: R): string {
  const lines = [`${clean(b.product)} (${clean(b.channel)}): ${String(b.state)}`, `  id: ${String(b.id)}`];
  lines.push(
    `  process: ${String(b.processState)}; remote debugging: ${String(b.remoteDebuggingState)}; authorization: ${String(b.authorizationState)}`,
  );
  const rem = b.remediation as R | undefined;
  // The JSON names the browser's own id as <id>; a person reads the command whole.
  if (rem) lines.push(`  action: ${clean(String(rem.message).replaceAll("<id>", String(b.id)), 300)}`);
  return lines.join("\n");
}

/** A result as text: its command's formatter (CommandDef.human), or its fields; then the watchdogs' hints and handbacks. */
export function humanize(result: R, f: Formatter | undefined, args: R = {}): string {
  const own = f?.(result, args);
  if (f && own === undefined) return humanize(result, undefined, args);
  if (f && "notices" in f) return withLines(own as string, result);
  if (f && "whole" in f) return own as string;
  const { ok: _ok, handbacks, ...rest } = result;
  const text = own ?? (JSON.stringify(rest) === "{}" ? "✓ Done" : JSON.stringify(rest));
  // A formatter shows its command's fields; the watchdogs' hints (a dialog on another tab, …) come after.
  const hints =
    f && Array.isArray(result.hints)
      ? (result.hints as R[]).filter((h) => typeof h.message === "string").map((h) => `hint: ${clean(h.message, 300)}`)
      : [];
  return [text, ...hints, ...(Array.isArray(handbacks) ? (handbacks as R[]).map(handbackLine) : [])].join("\n");
}

/** A tab this agent handed off or was blocked on came back: what changed. */
export function handbackLine(n: R): string {
  const parts = [`handback: ${String(n.tab)} (${String(n.ended)})`];
  if (n.url !== undefined) parts.push(`url ${clean(n.url)}`);
  if (n.title !== undefined) parts.push(`title ${clean(n.title, 80)}`);
  if (n.authentication_surface !== undefined) parts.push(`sign-in ${String(n.authentication_surface)}`);
  if (Array.isArray(n.newTabs)) parts.push(`new tabs ${(n.newTabs as R[]).map((t) => String(t.id)).join(", ")}`);
  if (n.closed) parts.push("closed");
  return `${parts.join("; ")}; refs of ${String(n.tab)} are stale, observe again`;
}

/**
 * A formatter whose text is all the human output, with no hint or handback lines after it:
 * so these commands read as they did when their broker handlers wrote the text.
 */
export function whole(f: Formatter): Formatter {
  return Object.assign((r: R, a: R) => f(r, a), { whole: true });
}

/** A whole text, then one short line per handback notice (as these commands have always read). */
export function withNotices(f: Formatter): Formatter {
  return Object.assign((r: R, a: R) => f(r, a), { notices: true });
}

/** Broker notes come last, after the handbacks; the watchdogs' hints right after the text. */
const LATE_HINTS = new Set(["broker_outdated", "home_differs"]);

/** A withNotices text, then the watchdogs' hints, what the policy stopped, handbacks and the broker's notes. */
function withLines(text: string, r: R): string {
  const hints = ((r.hints as R[] | undefined) ?? []).filter((h) => typeof h.message === "string");
  const hintLine = (h: R) => `hint: ${String(h.message)}`;
  const blocked = ((r.policyBlocked as R[] | undefined) ?? []).filter((x) => x.more === undefined);
  return [
    text,
    ...hints.filter((h) => !LATE_HINTS.has(String(h.type))).map(hintLine),
    ...blocked.map(
      (x) =>
        `policy stopped ${String(x.kind)} ${String(x.url)} (${String(x.rule)}${x.entry ? ` ${String(x.entry)}` : ""})`,
    ),
    ...((r.handbacks as R[] | undefined) ?? []).map(noticeLine),
    ...hints.filter((h) => LATE_HINTS.has(String(h.type))).map(hintLine),
  ].join("\n");
}

/** A handback notice in one line, after a text of withNotices. */
export function noticeLine(n: R): string {
  const parts = [`handback: ${String(n.tab)} (${String(n.ended)})`];
  if (typeof n.url === "string")
    parts.push(`url ${cutString(n.url.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " "), 200)}`);
  if (typeof n.authentication_surface === "string") parts.push(`sign-in ${n.authentication_surface}`);
  if (Array.isArray(n.newTabs)) parts.push(`${n.newTabs.length} new tab(s)`);
  if (n.closed) parts.push("closed");
  return parts.join("; ");
}

const list = (r: R, key: string) => (r[key] as R[] | undefined) ?? [];

/** `bp net clear` */
export const netClearText = whole((r) => `✓ ${String(r.cleared)} request(s) cleared`);

/** `bp net rules` */
export const netRulesText = whole((r) => {
  const rules = list(r, "rules");
  return rules.length === 0
    ? "No network rules."
    : rules.map((x) => `${String(x.id)}  ${String(x.type).padEnd(7)} ${String(x.pattern)}`).join("\n");
});

/** `bp net remove` */
export const netRemoveText = whole((r) => `✓ ${String(r.removed)} rule(s) removed, ${String(r.remaining)} left`);

/** `bp net har` */
export const netHarText = whole(
  (r) => `✓ ${String(r.entries)} request(s) written to ${String(r.file)} (${String(r.sizeBytes)} bytes)`,
);

/** `bp state list` */
export const stateListText = whole((r) => {
  const states = list(r, "states");
  return states.length === 0
    ? "No saved states."
    : states
        .map(
          (s) =>
            `${String(s.name)}  ${String(s.savedAt)}  ${String(s.cookies)} cookie(s)  ${(s.origins as string[]).join(", ")}`,
        )
        .join("\n");
});

/** `bp trace start` */
export const traceStartText = whole(
  (r) => `✓ Tracing ${String(r.tab)} (${String(r.categories)} categories); 'bp trace stop' writes it`,
);

/** `bp focus` */
export const focusText = whole((r) => `✓ Focused ${String(r.focused)}`);

/** `bp downloads` */
export const downloadsText = whole((r) => {
  const downloads = list(r, "downloads");
  return downloads.length === 0
    ? "No downloads."
    : downloads
        .map(
          (d) =>
            `${String(d.id).padEnd(5)} ${String(d.state).padEnd(11)} ${String(d.fileName)}${d.sizeBytes !== undefined ? `  ${String(d.sizeBytes)} bytes` : ""}${d.error ? `  (${String(d.error)})` : ""}`,
        )
        .join("\n");
});

/** `bp emulate` */
export const emulateText = whole((r) => {
  const lines = Object.entries((r.emulation as R | undefined) ?? {}).map(([k, v]) => `${k}: ${String(v)}`);
  return lines.length === 0 ? "No emulation in force." : lines.join("\n");
});

/** `bp screenshot` */
export const screenshotText = whole((r) => {
  const lines = [
    `✓ Screenshot saved to ${String(r.file)} (${String(r.width)}x${String(r.height)}, ${String(r.sizeBytes)} bytes)`,
  ];
  if (r.annotationCount !== undefined) lines.push(`  ${String(r.annotationCount)} numbered box(es) drawn`);
  const p = r.preview as R | undefined;
  if (p) lines.push(`  preview: ${String(p.file)} (${String(p.width)}x${String(p.height)})`);
  if (typeof r.hint === "string") lines.push(`  hint: ${r.hint}`);
  return lines.join("\n");
});

/** `bp pdf` */
export const pdfText = whole((r) => `✓ PDF saved to ${String(r.file)} (${String(r.sizeBytes)} bytes)`);

/** `bp command` and `bp cancel`: the record's line. */
export const commandText = whole((r) => {
  const c = (r.command as R | undefined) ?? {};
  const err = r.error as R | undefined;
  return `${String(c.id)}  ${String(c.status)}${c.cancellationRequested ? " (cancellation requested)" : ""}  ${String(c.method)}${err?.code ? `  [${String(err.code)}]` : ""}`;
});
