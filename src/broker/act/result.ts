import type { SnapshotResult } from "../../page/types.ts";
import type { click } from "../../protocol/commands-actions.ts";
import type { AnyEvidence } from "../../protocol/evidence.ts";
import { type EntryObject, readEntry, wireEntry } from "../../protocol/elements.ts";
import { commandNamed } from "../../protocol/registry.ts";
import { exactly, type ReplyOf } from "../context/handler.ts";
import { capitalize, withArticle } from "../../shared/words.ts";
import type { Selected } from "../context/tabs.ts";
import type { SnapshotReply } from "../observe/snapshot.ts";
import type { CallContext } from "../context/types.ts";
import { downloadByGuid, publicDownload } from "../net/downloads.ts";
import type { Effects } from "../settle/effects.ts";

export type Evidence = AnyEvidence;
/** What the reply stage reads of any evidence; non-observing actions (dropdown, history) answer with their reply. */
export interface EvidenceLike {
  [field: string]: unknown;
  action?: string;
  status?: string;
  effects?: string[];
}

export type ActionObservation = Omit<ReplyOf<typeof click.result>, "evidence">;
export type ActionReply<E> = ActionObservation & { evidence: E };
type ActionDiff = NonNullable<ActionObservation["diff"]>;
type Observation = { reply: SnapshotReply; previous: SnapshotResult | undefined } | undefined;

/**
 * Every action answers with its evidence and the page now: the diff since the agent's last observation, a new document
 * after a navigation, the whole page with --full, only the dialog while one is pending.
 */
export function replyFor<E extends EvidenceLike>(
  ctx: CallContext,
  sel: Selected,
  evidence: E,
  effects: Effects,
  observation: Observation,
): ActionReply<E> {
  const agent = sel.agent;
  const browser = sel.browser;
  const popups = effects.popups.map((id) => agent.idFor(id, browser.generation));
  const downloads = effects.downloads.flatMap((g) => downloadByGuid(browser, agent.key, g) ?? []).map(publicDownload);
  const dialog = sel.rec.dialog;
  const full = {
    ...evidence,
    ...(popups.length > 0 ? { popups } : {}),
    ...(downloads.length > 0 ? { downloads } : {}),
    ...(dialog ? { dialog: { id: dialog.id, type: dialog.type, message: dialog.message } } : {}),
  };
  // A person's text (src/protocol/human-snapshot.ts) names the action and all its effects, which the lean reply drops.
  const human = ctx.req.mode === "human";
  const view = { action: String(full.action), ...(full.effects?.length ? { effects: [...full.effects] } : {}) };
  if (dialog) {
    // Lean like any action's evidence: the dialog itself is the news.
    return {
      evidence: lean(full),
      hint: `${capitalize(withArticle(dialog.type))} dialog is open; answer it with 'bp dialog ${dialog.id} --accept' or '--dismiss'.`,
      ...(human ? { view } : {}),
    };
  }
  const leanEvidence = lean(full);
  if (!observation) return { evidence: leanEvidence };
  const diffed = observation.reply.diff !== undefined;
  const out = leanObservation(observation.reply);
  if (diffed) dropKnownHints(out, observation.previous);
  dropNamedFields(out, leanEvidence.effects);
  // Its text shows the observation whole (page lines, every hint and change), as the observation was before trimming.
  return {
    evidence: leanEvidence,
    ...out,
    ...(human ? { view: { ...view, observation: observation.reply as Record<string, unknown> } } : {}),
  };
}

/** With a diff, a hint merely still present (same type and refs) stays out. */
function dropKnownHints(out: ActionObservation, previous: SnapshotResult | undefined): void {
  if (!out.hints || !previous) return;
  const key = (type: unknown, refs: unknown) => `${String(type)} ${Array.isArray(refs) ? refs.join(",") : ""}`;
  const known = new Set(previous.hints.map((h) => key(h.type, h.refs)));
  const fresh = out.hints.filter(
    (h) => !((h.state === undefined || h.state === "present") && known.has(key(h.type, h.refs))),
  );
  if (fresh.length > 0) out.hints = fresh;
  else delete out.hints;
}

function fieldsOf(entry: EntryObject): string[] {
  return Array.isArray(entry.fields) ? entry.fields.map(String) : [];
}

/** A diff entry's `fields` list goes when the evidence already names each (`checked` with `checked_changed`). */
function dropNamedFields(out: ActionObservation, effects: string[] | undefined): void {
  const named = new Set(effects ?? []);
  const diff = out.diff;
  if (!diff?.changed) return;
  diff.changed = diff.changed.map((wire) => {
    const c = readEntry(wire);
    const fields = fieldsOf(c);
    if (fields.length === 0 || !fields.every((f) => named.has(`${f}_changed`))) return wire;
    const { fields: _named, ...rest } = c;
    return wireEntry(rest);
  });
}

/** Evidence fields each action leaves out: what the agent asked for, and values that say nothing. */
const QUIET_FIELDS: Record<string, (k: string, v: unknown, e: Record<string, unknown>) => boolean> = {
  type: (k, v, e) =>
    (k === "kind" && v === "input") ||
    (k === "sensitive" && v === false) ||
    (k === "expectedLength" && v === e.afterLength),
  keyboard: (k, v, e) =>
    (k === "kind" && v === "input") ||
    (k === "sensitive" && v === false) ||
    (k === "expectedLength" && v === e.afterLength),
  press: (k, v) =>
    k === "key" || (k === "kind" && (v === "none" || v === "input")) || (k === "sensitive" && v === false),
  scroll: (k, v) =>
    k === "mode" ||
    k === "target" ||
    k === "beforeX" ||
    k === "beforeY" ||
    (k === "moved" && v === true) ||
    ((k === "deltaX" || k === "afterX" || k === "deltaY") && v === 0),
  upload: (k) => k === "expectedFileCount",
};

/** Evidence carries only what the agent could not know. */
function lean<E extends EvidenceLike>(evidence: E): E {
  const out = { ...evidence };
  // Fields are only taken away here (each one the evidence schemas mark optional), so the rest keep their order.
  const fields: Record<string, unknown> = out;
  const pointer = commandNamed(String(evidence.action))?.pointer === true;
  const quiet = QUIET_FIELDS[String(evidence.action)];
  const original: Record<string, unknown> = evidence;
  for (const [k, v] of Object.entries(original)) {
    if (quiet?.(k, v, original)) delete fields[k];
    else if (k === "action" || (k === "kind" && evidence.action === "click" && v !== "coordinates")) delete fields[k];
    else if (k === "point" || (pointer && k === "focused")) delete fields[k];
    else if (pointer && (k === "target" || k === "checked") && original.kind !== "coordinates") delete fields[k];
    else if (k === "effects" && Array.isArray(v)) {
      const fx = pointer ? v.filter((e) => e !== "focus_changed") : v;
      if (fx.length > 0) fields.effects = fx;
      else delete fields.effects;
    } else if (Array.isArray(v) && v.length === 0) delete fields[k];
  }
  return out;
}

/** An action's observation says only what changed. */
function leanObservation(reply: SnapshotReply): ActionObservation {
  const out: Omit<SnapshotReply, "diff"> & { diff?: SnapshotReply["diff"] | ActionDiff } = { ...reply };
  delete out.page;
  delete out.total;
  if (out.truncated !== true) delete out.truncated;
  const diff = reply.diff;
  if (diff) {
    delete out.url;
    delete out.title;
    if (out.elements?.length === 0) delete out.elements;
    const changed = (diff.changed ?? []).flatMap((wire) => {
      const c = readEntry(wire);
      const fields = fieldsOf(c);
      const rest = fields.filter((f) => f !== "focused");
      if (fields.length > 0 && rest.length === 0) return [];
      if (rest.length === fields.length) return [wire];
      // Focus came along with a real change: leave it out of the entry too.
      const e: EntryObject = { ...c, fields: rest };
      if (typeof e.s === "string") {
        const st = e.s
          .split(" ")
          .filter((w) => w !== "focused")
          .join(" ");
        if (st) e.s = st;
        else delete e.s;
      }
      return [wireEntry(e)];
    });
    const d: ActionDiff = {
      ...(diff.added?.length ? { added: diff.added } : {}),
      ...(diff.removed?.length ? { removed: diff.removed } : {}),
      ...(changed.length > 0 ? { changed } : {}),
      ...(diff.announced?.length ? { announced: diff.announced } : {}),
      ...(diff.text?.length ? { text: diff.text } : {}),
      ...(diff.order?.length ? { order: diff.order } : {}),
      ...(diff.title !== undefined ? { title: diff.title } : {}),
      ...(diff.url !== undefined ? { url: diff.url } : {}),
    };
    if (Object.keys(d).length > 0) out.diff = d;
    else delete out.diff;
  }
  const { page: _page, total: _total, ...rest } = out;
  return exactly<ActionObservation>()(rest);
}
