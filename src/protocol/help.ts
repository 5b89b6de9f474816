import type { CommandDef, CommandGroup } from "./define.ts";
import { describeArgs } from "./introspect.ts";
import { allCommands, globalArgs } from "./table.ts";

const GROUP_ORDER: CommandGroup[] = [
  "Connection",
  "Tabs and navigation",
  "Observation",
  "Actions",
  "Network",
  "Waiting and recovery",
  "Files",
  "Reference",
];

const SYNOPSIS_WIDTH = 24;

/** Top-level help: every command on about one screen; agents read this, so it stays short. */
export async function renderTopHelp(version: string, denied?: (name: string) => boolean): Promise<string> {
  const COMMANDS = await allCommands();
  const lines = [`bp ${version}: drive Chromium from the shell; JSON when piped, text on a TTY.`, ""];
  // Capped: one long synopsis must not pad every line (the whole screen has a budget).
  const width = Math.min(SYNOPSIS_WIDTH, Math.max(...COMMANDS.map((c) => synopsis(c).length)));
  for (const group of GROUP_ORDER) {
    const cmds = COMMANDS.filter((c) => c.group === group);
    if (cmds.length === 0) continue;
    lines.push(`${group}:`);
    for (const l of topLines(cmds, denied)) lines.push(`  ${l.synopsis.padEnd(width)}  ${l.summary}`);
    lines.push("");
  }
  lines.push("Global: --json | --human, --client-key KEY, --request-id ID, --timeout MS");
  lines.push("Env: BROWSER_PILOT_CLIENT_KEY, BROWSER_PILOT_HOME, BROWSER_PILOT_OUTPUT_DIR");
  lines.push("Start: bp status; bp launch (or bp connect); bp open URL --new; bp tabs.");
  lines.push("Failures: {ok:false,code,error,retryable}; branch on code. 'bp <command> --help' for more.");
  return lines.join("\n");
}

export function renderCommandHelp(def: CommandDef, denied?: { command?: true; options?: string[] }): string {
  const lines = [`bp ${usage(def)}`, "", def.summary, ""];
  if (denied?.command) lines.splice(3, 0, "Denied by the host policy for this client key (policy_denied).", "");
  const args = describeArgs(def);
  if (args.length > 0) {
    lines.push("Arguments:");
    for (const a of args) {
      const label = a.positional
        ? `<${a.name}>`
        : `${a.alias ? `-${a.alias}, ` : ""}--${a.name}${a.kind === "boolean" ? "" : ` <${a.kind === "number" ? "n" : "value"}>`}`;
      const extra = [
        a.required ? "required" : "",
        a.default !== undefined && a.default !== false ? `default ${String(a.default)}` : "",
      ]
        .filter(Boolean)
        .join(", ");
      const off = denied?.options?.includes(a.name) ? " [denied by host policy]" : "";
      lines.push(`  ${label.padEnd(24)} ${a.description}${extra ? ` (${extra})` : ""}${off}`);
    }
    lines.push("");
  }
  const globals = describeArgs({ args: globalArgs() })
    .map((a) => `--${a.name}`)
    .join(" ");
  lines.push(`Global: ${globals}`);
  lines.push(`Example: ${def.example}`);
  return lines.join("\n");
}

/** A family of at least this many subcommands in a row takes one line of the top help: `state save|load|list|remove`, `trace start|stop`. */
const FAMILY_MIN = 2;

function topLines(
  cmds: readonly CommandDef[],
  denied?: (name: string) => boolean,
): { synopsis: string; summary: string }[] {
  // The host policy's removals (src/protocol/policy.ts), for the caller's key.
  const mark = (names: string[]) =>
    !denied
      ? ""
      : names.every(denied)
        ? " [denied by host policy]"
        : names.some(denied)
          ? " [partly denied by host policy]"
          : "";
  const out: { synopsis: string; summary: string }[] = [];
  for (let i = 0; i < cmds.length; ) {
    const first = cmds[i] as CommandDef;
    const [head, sub] = first.name.split(" ");
    let end = i + 1;
    while (
      sub !== undefined &&
      end < cmds.length &&
      cmds[end]?.name.split(" ").length === 2 &&
      cmds[end]?.name.startsWith(`${head} `)
    )
      end++;
    const members = cmds.slice(i, end);
    if (members.length >= FAMILY_MIN) {
      const summary = first.family ?? members.map((m) => headline(m.summary)).join("; ");
      out.push({
        synopsis: `${head} ${members.map((m) => m.name.split(" ")[1]).join("|")}`,
        summary: `${headline(summary)}${mark(members.map((m) => m.name))}`,
      });
      i = end;
    } else {
      out.push({ synopsis: synopsis(first), summary: `${headline(first.summary)}${mark([first.name])}` });
      i++;
    }
  }
  return out;
}

/** Flags every file or list command has: the top help leaves them to 'bp <command> --help'. */
const COMMON_FLAGS = new Set(["force", "limit"]);

/** Positionals and a command's one telling flag: the others are one 'bp <command> --help' away. */
function synopsis(def: CommandDef): string {
  const flags = describeArgs(def).filter((a) => !a.positional && !COMMON_FLAGS.has(a.name));
  const shown = usage(def, new Set([...COMMON_FLAGS, ...(flags.length === 1 ? [] : flags.map((f) => f.name))]));
  return def.topFlag && !shown.includes(`[--${def.topFlag}]`) ? `${shown} [--${def.topFlag}]` : shown;
}

/** The summary up to its first ';' or parenthesis, so the overview stays on one screen. */
function headline(summary: string): string {
  const cut = summary.split(/;| \(/)[0] ?? summary;
  return cut.length > 72 ? `${cut.slice(0, 71)}…` : cut;
}

function usage(def: CommandDef, leave: ReadonlySet<string> = new Set()): string {
  const parts = [def.name];
  for (const a of describeArgs(def)) {
    if (a.positional) parts.push(a.required ? `<${a.name}>` : `[${a.name}]`);
  }
  const flags = describeArgs(def).filter((a) => !a.positional && !leave.has(a.name));
  // Actions that take only the observation flags (--limit, --full) list none: the budget is tight.
  const onlyObservation =
    flags.length > 0 && flags.every((f) => f.name === "limit" || f.name === "full") && def.group !== "Observation";
  if (flags.length > 0 && !onlyObservation)
    parts.push(flags.length <= 2 ? flags.map((f) => `[--${f.name}]`).join(" ") : "[options]");
  return parts.join(" ");
}
