import { BpError } from "../../shared/errors.ts";
import { withArticle } from "../../shared/words.ts";
import type { Agent } from "../agents.ts";
import type { BrowserConnection } from "../browser.ts";
import { localFileRefusal } from "../local-files.ts";
import { isEligible, type TargetRecord } from "../targets.ts";
import type { CallContext } from "./types.ts";
import { cutString } from "../../shared/page-strings.ts";

export interface Selected {
  browser: BrowserConnection;
  agent: Agent;
  rec: TargetRecord;
  id: string;
}

/** Resolves this agent's tab id to a live target; another generation's, a closed or out-of-scope tab fail alike. */
export function resolveTab(ctx: CallContext, id: string): Selected {
  const browser = ctx.broker.requireBrowser();
  const agent = ctx.agent();
  const ref = agent.resolve(id);
  if (!ref && ctx.broker.agents.fromEarlierBroker(id)) {
    throw new BpError(
      "tab_not_found",
      `Tab ${id} belonged to an earlier broker; ids are never reused. Run 'bp tabs'.`,
      { context: { tab: id, reason: "broker_restarted" } },
    );
  }
  if (!ref)
    throw new BpError("tab_not_found", `No tab ${id}. Run 'bp tabs'.`, { context: { tab: id, reason: "unknown_tab" } });
  if (ref.generation !== browser.generation) {
    throw new BpError("tab_not_found", `Tab ${id} belonged to an earlier browser connection. Run 'bp tabs'.`, {
      context: { tab: id, reason: "browser_reconnected" },
    });
  }
  const rec = browser.targets.byId.get(ref.targetId);
  if (!rec)
    throw new BpError("tab_not_found", `Tab ${id} is closed. Run 'bp tabs'.`, {
      context: { tab: id, reason: "target_closed" },
    });
  // A tab that went to a browser-internal page is out of reach until it leaves it.
  if (!isEligible(rec)) {
    const local = localFileRefusal(rec.url) !== undefined;
    throw new BpError(
      "tab_not_found",
      local ? `Tab ${id} shows a local file, which agents may not read.` : `Tab ${id} shows a browser-internal page.`,
      {
        context: { tab: id, reason: local ? "local_file" : "ineligible" },
      },
    );
  }
  if (ctx.req.tabAccess === "own" && (rec.origin === "user_tab" || rec.creator !== agent.key)) {
    throw new BpError("tab_not_found", `No tab ${id}. Run 'bp tabs'.`, { context: { tab: id, reason: "unknown_tab" } });
  }
  // The admission gate: a tab under human control refuses every command at once.
  ctx.broker.handoff.admit(ctx.req, rec.targetId, id);
  return { browser, agent, rec, id };
}

/** Takes control of a tab for this agent; never steals it from another agent. */
export function takeControl(ctx: CallContext, sel: Selected): void {
  if (sel.rec.controller !== sel.agent.key && sel.browser.attachedElsewhere(sel.rec)) {
    throw new BpError(
      "target_busy",
      `Tab ${sel.id} is driven by another client of this remote browser (another bp install or tool).`,
      {
        retryable: true,
        context: { tab: sel.id, reason: "attached_elsewhere" },
      },
    );
  }
  const owner = sel.rec.controller;
  if (owner !== undefined && owner !== sel.agent.key && ctx.broker.agents.get(owner)) {
    throw new BpError("target_busy", `Tab ${sel.id} is controlled by another agent.`, {
      retryable: true,
      context: { tab: sel.id },
    });
  }
  sel.rec.controller = sel.agent.key;
}

/** A tab with an open dialog answers no page command: fail at once with the dialog's id instead of hanging. */
export function assertNoDialog(sel: Selected): void {
  const d = sel.rec.dialog;
  if (!d) return;
  throw new BpError(
    "dialog_pending",
    `Tab ${sel.id} is blocked by ${withArticle(d.type)} dialog ("${cutString(d.message, 120)}").`,
    {
      retryable: true,
      context: { tab: sel.id, dialog: d.id, type: d.type },
      remediation: {
        code: "answer_dialog",
        message: `Run 'bp dialog ${d.id} --accept' or '--dismiss'.`,
        actionRequired: true,
      },
    },
  );
}

export function selectedTab(ctx: CallContext, opts: { allowDialog?: boolean } = {}): Selected {
  const browser = ctx.broker.requireBrowser();
  const agent = ctx.agent();
  if (agent.selected === undefined) {
    throw new BpError("no_selected_tab", "No tab is selected for this agent.", {
      remediation: {
        code: "select_tab",
        message: "Run 'bp tabs' then 'bp tab <id>', or 'bp open <url> --new'.",
        actionRequired: true,
      },
    });
  }
  const id = agent.existingId(agent.selected) ?? agent.idFor(agent.selected, browser.generation);
  const sel = resolveTab(ctx, id);
  takeControl(ctx, sel);
  if (!opts.allowDialog) assertNoDialog(sel);
  return sel;
}
