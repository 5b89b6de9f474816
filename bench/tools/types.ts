/**
 * What the scenarios need from each tool. Each adapter keeps its state (temp dirs, sessions,
 * daemons) private, runs every command as a separate process, and stops what it started.
 */
import type { Exec } from "../lib/proc.ts";

export const CHROMIUM = process.env.BENCH_CHROMIUM ?? "/usr/bin/chromium";
/** Closed-network flags (peers.md §12); --no-sandbox is added where we run as root. */
export const CLOSED_NETWORK_FLAGS = [
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

/** Capabilities bp is still growing; peers have them all. */
export type Cap = "snapshot" | "click" | "type" | "screenshot";

export interface Sample {
  ms: number;
  chars?: number;
  ok: boolean;
  error?: string;
  note?: string;
}

export interface SnapshotVariant {
  /** "default" (the tool's default output) or "all" (covers every control on the page). */
  key: "default" | "all";
  label: string;
  args: string[];
}

export interface Commands {
  /** Prints the version and exits without asking a daemon: the process start-up floor. */
  version(): string[];
  eval(expr: string): string[];
  status(): string[];
  /** Navigate the agent's current tab. */
  navigate(url: string): string[];
  /** An agent's first command: get its own tab (bp) or session (peers) showing url. */
  firstOpen(url: string): string[];
  snapshots: SnapshotVariant[];
  click(ref: string): string[];
  type(ref: string, text: string): string[];
  /** Drag one element onto another (a ref, or for a tool whose snapshot gives the element none, a CSS selector). */
  drag(from: string, to: string): string[];
  /** Move the pointer onto an element. */
  hover(ref: string): string[];
  /** Choose an option of a dropdown by its label. */
  select(ref: string, option: string): string[];
  screenshot(file: string): string[];
  /** What a peer must run after an action to see its result; undefined when the reply has it. */
  observeAfterAction?: string[];
  /** Navigate and get the page's controls in one command, when the tool has one (else navigate, then look). */
  navigateAndLook?(url: string): string[];
  /** A step back in the tab's history. */
  back: string[];
  /** A step back and the page's controls in one command, when the tool has one (else back, then look). */
  backAndLook?: string[];
}

export interface Tool {
  readonly id: string;
  version: string;
  /** Set when the tool cannot run here (e.g. not installed): reported as skipped, never faked. */
  skipped?: string;
  /** bp commands not built yet (reported as "not available yet"). */
  missing: Set<Cap>;
  cmd: Commands;
  /** Detect version and capabilities, create private state dirs. */
  init(): Promise<void>;
  /** Start the main session with one tab showing url (untimed setup). */
  start(url: string): Promise<void>;
  /** Run one command in a session (bp: client key; peers: session name); default = main. */
  run(args: string[], session?: string): Promise<Exec>;
  ok(e: Exec): boolean;
  /** Ref of the element with this accessible name in a snapshot output, as the tool expects it. */
  findRef(snapshotOut: string, name: string): string | undefined;
  /** Whether the tool takes a CSS selector where it takes a ref (for elements its snapshot gives no ref). */
  readonly selectors?: boolean;
  /** From no broker/daemon to a first usable tab at url; timed as one figure. */
  coldStart(url: string): Promise<Sample>;
  /** Stop what coldStart started and wait until it is gone (untimed). */
  coldStop(): Promise<void>;
  /** Release a parallel agent's tab/session (untimed). */
  endAgent(session: string): Promise<void>;
  /** Long-lived helper processes of the main session, for memory figures. */
  daemons(): { label: "daemon" | "janitor"; pid: number }[];
  /** Stop everything this tool started. */
  shutdown(): Promise<void>;
}

/** Short error text for a failed command. */
export function errorText(e: Exec): string {
  if (e.timedOut) return "timed out";
  const text = (e.out.trim() || e.err.trim()).replace(/\s+/g, " ");
  const code = text.match(/"code":"([a-z_]+)"/)?.[1];
  return (code ?? text.slice(0, 120)) || `exit ${e.code}`;
}

/** Sample of one or more commands run in sequence (an agent's "act, then look"). */
export async function sequence(tool: Tool, commands: string[][], session?: string): Promise<Sample> {
  let ms = 0;
  let chars = 0;
  for (const args of commands) {
    const e = await tool.run(args, session);
    ms += e.ms;
    chars += e.out.length;
    if (!tool.ok(e)) return { ms, chars, ok: false, error: `${args[0]}: ${errorText(e)}` };
  }
  return { ms, chars, ok: true };
}

/** Ref lookup in the YAML-like snapshots of agent-browser and playwright-cli. */
export function yamlRef(out: string, name: string): string | undefined {
  const quoted = `"${name}"`;
  // An element named by its text only (a list item): `- listitem [ref=e9]: Ann`.
  const text = `]: ${name}`;
  for (const line of out.split("\n")) {
    if (!line.includes(quoted) && !line.trimEnd().endsWith(text)) continue;
    const m = line.match(/ref=([a-z0-9]+)/);
    if (m?.[1]) return m[1];
  }
  return undefined;
}
