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
  if (!observation) return { evidence };
  const out = observation.reply;
  if (ctx.req.mode === "human") {
    const fx = Array.isArray(evidence.effects) ? (evidence.effects as string[]) : [];
    const head = `${statusMark(evidence.status)} ${String(evidence.action)} ${String(evidence.status)}${fx.length ? ` (${fx.join(", ")})` : ""}${popups.length ? `; popup ${popups.join(", ")}` : ""}${downloads.map((d) => `; download ${String(d.id)} ${String(d.fileName)} (${String(d.state)})`).join("")}`;
    out.text = `${head}\n${String(out.text ?? "")}`;
  }
  return { evidence, ...out };
}
