/**
 * Watchdogs: small, bounded hints added to successful command results when something the
 * agent should know about is going on elsewhere: an unanswered dialog on another of its
 * tabs, a navigation that has been loading too long, or actions that change nothing.
 */
import type { WatchdogHint } from "../../protocol/define.ts";
import { commandNamed } from "../../protocol/registry.ts";
import type { CallRequest } from "../../protocol/wire.ts";
import type { Agent } from "../agents.ts";
import type { BrowserConnection } from "../browser.ts";
import type { BrokerState } from "../context/types.ts";
import type { Reply } from "./store.ts";
import { boundUrl, cutString } from "../../shared/page-strings.ts";
import { redactUrl } from "../net/redact.ts";

const STALL_MS =
  Number(process.env.BROWSER_PILOT_NAV_STALL_MS) > 0 ? Number(process.env.BROWSER_PILOT_NAV_STALL_MS) : 10_000;
/** Consecutive no-progress actions on one tab before the agent is told to stop. */
export const REPEAT_LIMIT = 3;
const MAX_HINTS = 4;
const MAX_TRACKED = 1024;

/** As every browser command's result schema names it (src/protocol/define.ts). */
export type Hint = WatchdogHint;

interface Progress {
  url: string | undefined;
  count: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const emptyList = (v: unknown) => !Array.isArray(v) || v.length === 0;

export class Watchdogs {
  /** Per connection: main-frame loads in progress, target id → start time. */
  private readonly loading = new WeakMap<BrowserConnection, Map<string, number>>();
  private readonly progress = new Map<string, Progress>();

  constructor(private readonly broker: BrokerState) {}

  /** Follows main-frame loading on every attached tab of this connection (once per connection). */
  watch(conn: BrowserConnection): void {
    if (this.loading.has(conn)) return;
    const map = new Map<string, number>();
    this.loading.set(conn, map);
    // A page's main frame id is its target id.
    conn.cdp.on("Page.frameStartedLoading", ({ frameId }) => {
      if (conn.targets.byId.has(frameId)) map.set(frameId, Date.now());
    });
    conn.cdp.on("Page.frameStoppedLoading", ({ frameId }) => {
      map.delete(frameId);
    });
    conn.cdp.on("Target.targetDestroyed", ({ targetId }) => {
      map.delete(targetId);
    });
  }

  /** Where the agent's console log stood when a command started (for its page-errors hint). */
  consoleCursor(key: string): number {
    return this.broker.agents.get(key)?.netIfAny?.console.last ?? 0;
  }

  /** Adds `hints` to a successful reply of a browser command. */
  annotate(req: CallRequest, reply: Reply, consoleBefore?: number): void {
    const conn = this.broker.browser;
    const agent = this.broker.agents.get(req.clientKey);
    if (!conn || conn.closed || !agent) return;
    const here = agent.selected;
    const hints: Hint[] = [];
    if (commandNamed(req.command)?.aboutDialogs !== true) hints.push(...this.dialogHints(conn, agent, here));
    hints.push(...this.elsewhereStalled(conn, agent, here));
    if (here !== undefined) {
      const stalled = this.stallHint(conn, agent, here);
      if (stalled) hints.push(stalled);
      const repeated = this.progressHint(agent, here, reply, req.command);
      if (repeated) hints.push(repeated);
      const errors =
        consoleBefore !== undefined && isObj(reply.evidence) ? this.errorsHint(agent, here, consoleBefore) : undefined;
      if (errors) hints.push(errors);
    }
    if (hints.length === 0) return;
    const added = hints.slice(0, MAX_HINTS);
    const existing = Array.isArray(reply.hints) ? (reply.hints as unknown[]) : [];
    reply.hints = [...existing, ...added];
  }

  private dialogHints(conn: BrowserConnection, agent: Agent, here: string | undefined): Hint[] {
    const out: Hint[] = [];
    for (const t of conn.targets.byId.values()) {
      const d = t.dialog;
      if (!d || t.controller !== agent.key || t.targetId === here) continue;
      const tab = agent.existingId(t.targetId) ?? agent.idFor(t.targetId, conn.generation);
      // Lean: it rides on every reply while the dialog waits, so no time it opened ('bp dialogs'
      // has it) and a message that is the dialog's text and the command to answer it.
      out.push({
        type: "dialog_pending",
        tab,
        dialog: d.id,
        dialogType: d.type,
        message: `${tab} waits on an unanswered ${d.type} ("${cutString(d.message, 80).replace(/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")}"): bp dialog ${d.id} --accept or --dismiss`,
      });
    }
    return out;
  }

  private stallHint(conn: BrowserConnection, agent: Agent, targetId: string): Hint | undefined {
    const since = this.loading.get(conn)?.get(targetId);
    if (since === undefined) return undefined;
    const loadingMs = Date.now() - since;
    if (loadingMs < STALL_MS) return undefined;
    const tab = agent.existingId(targetId);
    const url = conn.targets.byId.get(targetId)?.url ?? "";
    return {
      type: "navigation_stalled",
      ...(tab !== undefined ? { tab } : {}),
      url,
      loadingMs,
      message: `Tab ${tab ?? ""} has been loading for ${Math.round(loadingMs / 1000)} s; the page may be stalled. Observe what is there (bp snapshot), or 'bp reload' / 'bp open' again.`,
    };
  }

  /** The agent's other tabs that wait for a slow server's new page: it may have moved on and forgotten them. */
  private elsewhereStalled(conn: BrowserConnection, agent: Agent, here: string | undefined): Hint[] {
    const out: Hint[] = [];
    for (const t of conn.targets.byId.values()) {
      const nav = t.navigating;
      if (!nav || t.controller !== agent.key || t.targetId === here) continue;
      const loadingMs = Date.now() - nav.at;
      if (loadingMs < STALL_MS) continue;
      const tab = agent.existingId(t.targetId) ?? agent.idFor(t.targetId, conn.generation);
      const url = redactUrl(boundUrl(nav.url));
      out.push({
        type: "navigation_stalled",
        tab,
        url,
        loadingMs,
        message: `Tab ${tab} has waited ${Math.round(loadingMs / 1000)} s for ${url}; 'bp tab ${tab}' then 'bp stop' gives it up.`,
      });
    }
    return out;
  }

  /**
   * Counts consecutive actions (results with `evidence`) on one tab that show no
   * observable progress: no effects, an empty diff and the same URL. Any other command on
   * the tab that returns the page (a snapshot) resets the count.
   */
  private progressHint(agent: Agent, targetId: string, reply: Reply, command: string): Hint | undefined {
    const key = `${agent.key}\n${targetId}`;
    const prev = this.progress.get(key);
    const url = typeof reply.url === "string" ? reply.url : undefined;
    const evidence = reply.evidence;
    if (!isObj(evidence)) {
      // Observations are lean (no tab id), so they are known by name, or by the page's elements (a navigation's look).
      if (typeof reply.tab === "string" || reply.elements !== undefined || commandNamed(command)?.observes === true)
        this.remember(key, { url: url ?? prev?.url, count: 0 });
      return undefined;
    }
    // A full observation (a new document's elements, no diff) says nothing either way: leave
    // the count alone. No diff and no elements is a lean reply's "nothing changed".
    if (!isObj(reply.diff) && reply.elements !== undefined) return undefined;
    const diff: Record<string, unknown> = isObj(reply.diff) ? reply.diff : {};
    const emptyDiff =
      emptyList(diff.added) &&
      emptyList(diff.removed) &&
      emptyList(diff.changed) &&
      emptyList(diff.text) &&
      emptyList(diff.order) &&
      diff.title === undefined &&
      diff.url === undefined;
    const sameUrl = url === undefined || prev?.url === undefined || prev.url === url;
    // A scroll that moved and a dialog answered are progress, whatever the page did after them.
    const moved =
      [evidence.deltaX, evidence.deltaY].some((d) => typeof d === "number" && d !== 0) || evidence.moved === true;
    const still =
      emptyList(evidence.effects) && emptyDiff && sameUrl && !moved && commandNamed(command)?.aboutDialogs !== true;
    const count = still ? (prev?.count ?? 0) + 1 : 0;
    this.remember(key, { url: url ?? prev?.url, count });
    if (count < REPEAT_LIMIT) return undefined;
    const tab = agent.existingId(targetId);
    return {
      type: "repeated_action",
      ...(tab !== undefined ? { tab } : {}),
      count,
      message: `${count} actions in a row on ${tab ?? "this tab"} changed nothing observable (same URL, no effects, empty diff). Stop repeating: re-observe with 'bp snapshot' (or 'bp screenshot') and try a different approach.`,
    };
  }

  /** An action's reply names the page errors that came while it ran: the page broke, not the agent's step. */
  private errorsHint(agent: Agent, targetId: string, before: number): Hint | undefined {
    const errors = agent.netIfAny?.console.errorsAfter(targetId, before) ?? [];
    const first = errors[0];
    if (!first) return undefined;
    const tab = agent.existingId(targetId);
    const text = cutString(first.text.split("\n")[0] ?? "", 120);
    return {
      type: "page_errors",
      ...(tab !== undefined ? { tab } : {}),
      count: errors.length,
      message: `${errors.length} new page error(s): ${text}. See 'bp console --level error --since ${before}'.`,
    };
  }

  private remember(key: string, p: Progress): void {
    this.progress.delete(key);
    this.progress.set(key, p);
    if (this.progress.size > MAX_TRACKED) {
      const oldest = this.progress.keys().next().value;
      if (oldest !== undefined) this.progress.delete(oldest);
    }
  }
}
