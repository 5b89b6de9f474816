import type { SnapshotResult } from "../../page/types.ts";
import { capitalize, withArticle } from "../../shared/words.ts";
import type { Selected } from "../context/tabs.ts";
import type { CallContext } from "../context/types.ts";
import { downloadByGuid, publicDownload } from "../net/downloads.ts";
import type { Effects } from "./watch.ts";

/** ✓ only for verified: an agent skimming the text must not read "unavailable" as success. */
export function statusMark(status: unknown): string {
  return status === "verified" ? "✓" : status === "mismatch" ? "✗" : "?";
}

type Observation = { reply: Record<string, unknown>; previous: SnapshotResult | undefined } | undefined;

/**
 * Every action answers with its evidence and the page as it is now, in one reply: by default
 * the change since the agent's previous observation (refs are stable, so a diff is exact);
 * after a navigation, the new document's observation; with --full, the whole observation.
 * A pending dialog blocks the page's scripts, so then only the dialog is reported.
 */
export function replyFor(ctx: CallContext, sel: Selected, evidence: Record<string, unknown>, effects: Effects, observation: Observation): Record<string, unknown> {
  const agent = sel.agent;
  const browser = sel.browser;
  const popups = effects.popups.map((id) => agent.idFor(id, browser.generation));
  if (popups.length > 0) evidence.popups = popups;
  const downloads = effects.downloads.flatMap((g) => downloadByGuid(agent.key, g) ?? []).map(publicDownload);
  if (downloads.length > 0) evidence.downloads = downloads;
  const dialog = sel.rec.dialog;
  if (dialog) {
    evidence.dialog = { id: dialog.id, type: dialog.type, message: dialog.message };
    const text = ctx.req.mode === "human" ? `✓ ${String(evidence.action)}: dialog ${dialog.id} (${dialog.type}) "${dialog.message.slice(0, 200).replace(/[\r\n]+/g, " ")}" is open; answer with 'bp dialog ${dialog.id} --accept|--dismiss'.` : undefined;
    return { evidence, hint: `${capitalize(withArticle(dialog.type))} dialog is open; answer it with 'bp dialog ${dialog.id} --accept' or '--dismiss'.`, ...(text ? { text } : {}) };
  }
  if (!observation) return { evidence: lean(evidence) };
  const diffed = observation.reply.diff !== undefined;
  const out = leanObservation(observation.reply);
  if (diffed) dropKnownHints(out, observation.previous);
  dropNamedFields(out, lean(evidence).effects);
  if (ctx.req.mode === "human") {
    const fx = Array.isArray(evidence.effects) ? (evidence.effects as string[]) : [];
    const head = `${statusMark(evidence.status)} ${String(evidence.action)} ${String(evidence.status)}${fx.length ? ` (${fx.join(", ")})` : ""}${popups.length ? `; popup ${popups.join(", ")}` : ""}${downloads.map((d) => `; download ${String(d.id)} ${String(d.fileName)} (${String(d.state)})`).join("")}`;
    out.text = `${head}\n${String(out.text ?? "")}`;
  }
  return { evidence: lean(evidence), ...out };
}

/**
 * With a diff, a hint the agent's previous observation already gave is not news: a hint that
 * is merely still present (same type, same refs) stays out; one that appeared, left or moved
 * to other refs comes along.
 */
function dropKnownHints(out: Record<string, unknown>, previous: SnapshotResult | undefined): void {
  if (!Array.isArray(out.hints) || !previous) return;
  const key = (type: unknown, refs: unknown) => `${String(type)} ${Array.isArray(refs) ? refs.join(",") : ""}`;
  const known = new Set(previous.hints.map((h) => key(h.type, h.refs)));
  const fresh = (out.hints as Record<string, unknown>[]).filter((h) => !((h.state === undefined || h.state === "present") && known.has(key(h.type, h.refs))));
  if (fresh.length > 0) out.hints = fresh;
  else delete out.hints;
}

/**
 * A diff entry's `fields` say which of its fields changed; when the evidence already names each
 * of them (`checked` with `checked_changed`), the list repeats it.
 */
function dropNamedFields(out: Record<string, unknown>, effects: unknown): void {
  const named = new Set(Array.isArray(effects) ? effects.map(String) : []);
  const diff = out.diff as { changed?: Record<string, unknown>[] } | undefined;
  if (!diff?.changed) return;
  diff.changed = diff.changed.map((c) => {
    const fields = Array.isArray(c.fields) ? (c.fields as string[]) : [];
    if (fields.length === 0 || !fields.every((f) => named.has(`${f}_changed`))) return c;
    const { fields: _named, ...rest } = c;
    return rest;
  });
}

/** Pointer actions focus what they press: a focus change is their noise, not their news. */
const POINTER = new Set(["click", "hover", "drag"]);

/**
 * Evidence fields each action leaves out because the agent already knows them or they hold
 * the default: what it asked for (the key it pressed, the scroll mode and target, the file
 * count), and values that say nothing (`sensitive` false, `kind` input or none, a scroll's
 * start position and its zero axis, `moved` true next to the delta that shows it, a typed
 * `expectedLength` equal to `afterLength`).
 */
const QUIET_FIELDS: Record<string, (k: string, v: unknown, e: Record<string, unknown>) => boolean> = {
  type: (k, v, e) => (k === "kind" && v === "input") || (k === "sensitive" && v === false) || (k === "expectedLength" && v === e.afterLength),
  keyboard: (k, v, e) => (k === "kind" && v === "input") || (k === "sensitive" && v === false) || (k === "expectedLength" && v === e.afterLength),
  press: (k, v) => k === "key" || (k === "kind" && (v === "none" || v === "input")) || (k === "sensitive" && v === false),
  scroll: (k, v) => k === "mode" || k === "target" || k === "beforeX" || k === "beforeY" || (k === "moved" && v === true) || ((k === "deltaX" || k === "afterX" || k === "deltaY") && v === 0),
  upload: (k) => k === "expectedFileCount",
};

/**
 * Evidence carries what the agent could not know: no action name or click point (the agent
 * named both), no focus-only change of a pointer action, no empty lists, none of the fields
 * QUIET_FIELDS names for the action.
 */
function lean(evidence: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const pointer = POINTER.has(String(evidence.action));
  const quiet = QUIET_FIELDS[String(evidence.action)];
  for (const [k, v] of Object.entries(evidence)) {
    if (quiet?.(k, v, evidence)) continue;
    // The agent knows which command it ran, and for a click on a ref what kind of element it named.
    if (k === "action" || (k === "kind" && evidence.action === "click" && v !== "coordinates")) continue;
    if (k === "point" || (pointer && k === "focused")) continue;
    // A ref's own element is what the agent named, and its new state is in the diff.
    if (pointer && (k === "target" || k === "checked") && evidence.kind !== "coordinates") continue;
    if (k === "effects" && Array.isArray(v)) {
      const fx = pointer ? v.filter((e) => e !== "focus_changed") : v;
      if (fx.length > 0) out.effects = fx;
      continue;
    }
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

/**
 * An action's observation says only what changed: with a diff, no unchanged tab, url, title,
 * page geometry or counts (the diff names a new url or title), no empty lists, no element
 * whose only change is focus; a truncation only when it happened.
 */
function leanObservation(reply: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...reply };
  delete out.page;
  delete out.total;
  if (out.truncated !== true) delete out.truncated;
  const diff = out.diff as Record<string, unknown> | undefined;
  if (diff) {
    delete out.tab;
    delete out.url;
    delete out.title;
    if (Array.isArray(out.elements) && out.elements.length === 0) delete out.elements;
    const d: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(diff)) {
      if (k === "unchanged") continue;
      if (k === "changed" && Array.isArray(v)) {
        const real = v.flatMap((c: Record<string, unknown>) => {
          const fields = Array.isArray(c.fields) ? (c.fields as string[]) : [];
          const rest = fields.filter((f) => f !== "focused");
          if (fields.length > 0 && rest.length === 0) return [];
          if (rest.length === fields.length) return [c];
          // Focus came along with a real change: leave it out of the entry too.
          const e: Record<string, unknown> = { ...c, fields: rest };
          if (typeof e.s === "string") {
            const st = e.s.split(" ").filter((w) => w !== "focused").join(" ");
            if (st) e.s = st;
            else delete e.s;
          }
          return [e];
        });
        if (real.length > 0) d.changed = real;
        continue;
      }
      if (Array.isArray(v) && v.length === 0) continue;
      d[k] = v;
    }
    // Nothing changed: no diff at all (an empty one would only cost characters).
    if (Object.keys(d).length > 0) out.diff = d;
    else delete out.diff;
  }
  return out;
}
