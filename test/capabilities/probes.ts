/**
 * Action-failure and stale-ref probes: each sets up a page, takes a snapshot, changes the world
 * under the ref (cover it, reject the edit, navigate, replace the document, remove the node) and
 * checks that bp says so with the right code instead of acting on the wrong thing.
 */
import type { BpResult } from "../support/bp.ts";
import { refOf, type Harness, type ProbeResult, type ProbeStatus } from "./harness.ts";

export interface Probe {
  id: string;
  metric: ProbeResult["metric"];
  title: string;
  run(h: Harness): Promise<{ status: ProbeStatus; detail: string }>;
}

function errorDetail(r: BpResult): string {
  if (r.json.ok) return "ok (no error)";
  const reason = r.json.context?.reason;
  return typeof reason === "string" ? `${r.json.code} ${reason}` : String(r.json.code);
}

/** A click on a ref the world moved away from: stale_ref (with `reason` when one is required). */
async function expectStale(h: Harness, ref: number, reason?: string): Promise<{ status: ProbeStatus; detail: string }> {
  const r = await h.bp(["click", String(ref)]);
  const stale = !r.json.ok && r.json.code === "stale_ref";
  const hit = await h.evaluate("document.body?.dataset.hit ?? ''").catch(() => "");
  const detail = `${errorDetail(r)}${hit ? `; page saw a click on ${JSON.stringify(hit)}` : ""}`;
  const detected = stale && !hit && (reason === undefined || r.json.context?.reason === reason);
  return { status: detected ? "detected" : "missed", detail };
}

export const PROBES: readonly Probe[] = [
  {
    id: "covered_click",
    metric: "action_failure",
    title: "bp click on a button under a fixed overlay: action_not_verified naming the overlay",
    async run(h) {
      await h.open("/cap/overlay");
      const ref = refOf(await h.snapshot(), "Pay now");
      const r = await h.bp(["click", String(ref)]);
      const obstruction = r.json.context?.obstruction;
      const o = typeof obstruction === "object" && obstruction !== null ? (obstruction as Record<string, unknown>) : {};
      const names = `${String(o.id ?? "")} ${String(o.name ?? "")}`.toLowerCase();
      const hit = await h.evaluate("document.body.dataset.hit ?? ''");
      const detected = !r.json.ok && r.json.code === "action_not_verified" && names.includes("cookie") && hit === "";
      const by = o.tagName ? ` by ${String(o.tagName)}${o.id ? `#${String(o.id)}` : ""}` : "";
      return {
        status: detected ? "detected" : "missed",
        detail: `${errorDetail(r)}${by}${hit ? `; page saw a click on ${String(hit)}` : ""}`,
      };
    },
  },
  {
    id: "controlled_input_rollback",
    metric: "action_failure",
    title: "bp type into an input whose framework rolls the edit back: mismatch, not success",
    async run(h) {
      if (!(await h.has("type")))
        return { status: "skipped", detail: "bp type is not built yet ('bp type --help' fails)" };
      await h.open("/cap/controlled_input");
      const ref = refOf(await h.snapshot(), "Email");
      const r = await h.bp(["type", String(ref), "bob@example.com"]);
      const evidence = r.json.evidence;
      const status =
        typeof evidence === "object" && evidence !== null ? (evidence as Record<string, unknown>).status : undefined;
      const value = await h.evaluate("document.getElementById('email').value");
      const refused = !r.json.ok && (r.json.code === "action_not_verified" || r.json.code === "unknown_outcome");
      const detected = value === "ann@example.com" && (refused || (r.json.ok && status === "mismatch"));
      return {
        status: detected ? "detected" : "missed",
        detail: `${r.json.ok ? `ok, evidence ${String(status)}` : errorDetail(r)}; value now ${JSON.stringify(value)}`,
      };
    },
  },
  {
    id: "stale_navigation",
    metric: "stale_ref",
    title: "the page follows a link; an old ref is stale_ref reason navigation",
    async run(h) {
      await h.open("/cap/navigation");
      const ref = refOf(await h.snapshot(), "Stay here");
      await h.evaluate("setTimeout(() => document.querySelector('a').click(), 0), 1");
      await h.until("location.pathname === '/cap/arrived' && document.readyState === 'complete'");
      return expectStale(h, ref, "navigation");
    },
  },
  {
    id: "stale_document_write",
    metric: "stale_ref",
    title: "document.open/write replaces the content; an old ref is stale_ref",
    async run(h) {
      await h.open("/cap/document_replacement");
      const ref = refOf(await h.snapshot(), "Old button");
      await h.evaluate(
        "document.open(); document.write('<title>Replaced</title><button onclick=\"document.body.dataset.hit=1\">Old button</button>'); document.close(), 1",
      );
      return expectStale(h, ref);
    },
  },
  {
    id: "stale_reload",
    metric: "stale_ref",
    title: "location.reload() replaces the document at the same URL; an old ref is stale_ref",
    async run(h) {
      await h.open("/cap/document_replacement");
      const ref = refOf(await h.snapshot(), "Old button");
      await h.evaluate("window.__beforeReload = 1, setTimeout(() => location.reload(), 0), 1");
      await h.until("window.__beforeReload === undefined && document.readyState === 'complete'");
      return expectStale(h, ref);
    },
  },
  {
    id: "stale_node_removed",
    metric: "stale_ref",
    title: "the element is removed from the DOM; its ref is stale_ref",
    async run(h) {
      await h.open("/cap/document_replacement");
      const ref = refOf(await h.snapshot(), "Old button");
      await h.evaluate("document.getElementById('old').remove(), 1");
      return expectStale(h, ref);
    },
  },
];

/** An observation probe passes or misses on one condition, with what was seen. */
const verdict = (ok: boolean, detail: string): { status: ProbeStatus; detail: string } => ({
  status: ok ? "detected" : "missed",
  detail,
});

export const OBSERVATION_PROBES: readonly Probe[] = [
  {
    id: "ref_not_reused",
    metric: "stale_ref",
    title: "after a navigation and a new snapshot, an old ref is stale_ref, never the new page's element",
    async run(h) {
      await h.open("/cap/navigation");
      const ref = refOf(await h.snapshot(), "Stay here");
      await h.open("/cap/arrived");
      await h.snapshot();
      return expectStale(h, ref, "navigation");
    },
  },
  {
    id: "earlier_tab_visible",
    metric: "observation",
    title: "another agent opening its own tab leaves this agent's tab visible",
    async run(h) {
      await h.open("/cap/navigation");
      const other = await h.env.run(["open", `${h.site.a}/cap/arrived`, "--new"], { key: "cap-other-agent" });
      const state = await h.evaluate("document.visibilityState");
      await h.env.run(["close"], { key: "cap-other-agent" });
      return verdict(other.json.ok === true && state === "visible", `visibilityState ${String(state)}`);
    },
  },
  {
    id: "frame_number_selects_frame",
    metric: "observation",
    title: "the snapshot's f of an element behind a hidden and a nested frame is the 'bp frame' number of its frame",
    async run(h) {
      await h.open("/cap/frames_numbered");
      const f = (await h.snapshot()).entries.find((e) => e.n === "Frame button")?.f;
      const sel = await h.bp(["frame", String(f)]);
      const origin = sel.json.ok ? await h.evaluate("location.origin") : undefined;
      await h.bp(["frame", "0"]);
      return verdict(origin === h.site.b, `f ${String(f)}; bp frame ${String(f)} → ${String(origin ?? sel.json.code)}`);
    },
  },
  {
    id: "accordion_settled",
    metric: "observation",
    title: "a click that opens an accordion through a CSS transition: the panel's control is in the reply",
    async run(h) {
      await h.open("/cap/accordion");
      const r = await h.bp(["click", String(refOf(await h.snapshot(), "Shipping"))]);
      const added = ((r.json.diff as { added?: { n?: string }[] } | undefined)?.added ?? []).map((e) => e.n);
      return verdict(added.includes("Choose carrier"), `added ${JSON.stringify(added)}`);
    },
  },
  {
    id: "same_document_url_changed",
    metric: "observation",
    title: "a #fragment link: url_changed with the diff, not a navigation waiting for a load",
    async run(h) {
      await h.open("/cap/same_document");
      const r = await h.bp(["click", String(refOf(await h.snapshot(), "Details"))]);
      const effects = ((r.json.evidence as { effects?: string[] } | undefined)?.effects ?? []).join(",");
      return verdict(
        effects.includes("url_changed") && !effects.includes("navigation"),
        `effects ${effects || errorDetail(r)}`,
      );
    },
  },
  {
    id: "frame_dom_changed",
    metric: "observation",
    title: "a click that changes only a cross-origin frame's text reports dom_changed",
    async run(h) {
      await h.open("/cap/frame_change");
      const r = await h.bp(["click", String(refOf(await h.snapshot(), "Change me"))]);
      const effects = ((r.json.evidence as { effects?: string[] } | undefined)?.effects ?? []).join(",");
      return verdict(effects.includes("dom_changed"), `effects ${effects || errorDetail(r)}`);
    },
  },
  {
    id: "find_in_fold",
    metric: "observation",
    title: "snapshot --find reaches one row of a folded run by name, with a ref that clicks it",
    async run(h) {
      await h.open("/cap/long_list");
      const r = (await h.snapshot(["--find", "Row 250"])).entries.find((e) => e.n === "Row 250")?.r;
      const click = await h.bp(["click", String(r)]);
      const hit = click.json.ok ? await h.evaluate("document.body.dataset.hit ?? ''") : "";
      return verdict(
        hit === "Row 250",
        `ref ${String(r)}; ${click.json.ok ? `page saw ${JSON.stringify(hit)}` : errorDetail(click)}`,
      );
    },
  },
  {
    id: "hover_swap_click",
    metric: "observation",
    title: "an icon whose :hover style swaps its image: the click goes to the other image, not verified",
    async run(h) {
      await h.open("/cap/hover_swap");
      const r = await h.bp(["click", String(refOf(await h.snapshot(), "Settings"))]);
      return notVerified(h, r);
    },
  },
  {
    id: "replaced_button_click",
    metric: "observation",
    title: "a button whose pointerdown handler replaces it: its click handler never runs, not verified",
    async run(h) {
      await h.open("/cap/replaced_button");
      const r = await h.bp(["click", String(refOf(await h.snapshot(), "Buy"))]);
      return notVerified(h, r);
    },
  },
  {
    id: "focus_only_click",
    metric: "observation",
    title: "a click whose only effect is focus: the same status on the first and the second try",
    async run(h) {
      await h.open("/cap/dead_button");
      const ref = String(refOf(await h.snapshot(), "Nothing"));
      const a = await h.bp(["click", ref]);
      const b = await h.bp(["click", ref]);
      const sa = (a.json.evidence as { status?: string } | undefined)?.status,
        sb = (b.json.evidence as { status?: string } | undefined)?.status;
      return verdict(sa !== undefined && sa === sb && sa !== "verified", `first ${String(sa)}, second ${String(sb)}`);
    },
  },
  {
    id: "empty_replies_refused",
    metric: "observation",
    title: "type with no text and select of a missing option are refused, not answered ok",
    async run(h) {
      await h.open("/cap/dead_button");
      const snap = await h.snapshot();
      const typed = await h.bp(["type", String(refOf(snap, "Name"))]);
      const picked = await h.bp(["select", String(refOf(snap, "Size")), "XL"]);
      const options = picked.json.context?.options;
      const ok =
        typed.json.code === "invalid_argument" &&
        picked.json.code === "invalid_argument" &&
        Array.isArray(options) &&
        options.join(",") === "S,M";
      return verdict(
        ok,
        `type ${errorDetail(typed)}; select ${errorDetail(picked)} ${JSON.stringify(options ?? null)}`,
      );
    },
  },
];

/** Detected when the click is not `verified` and the page's own click handler did not run. */
async function notVerified(h: Harness, r: BpResult): Promise<{ status: ProbeStatus; detail: string }> {
  const ev = r.json.evidence as { status?: string; reason?: string } | undefined;
  const hit = await h.evaluate("document.body.dataset.hit ?? ''").catch(() => "");
  return verdict(
    r.json.ok === true && ev?.status !== "verified" && hit === "",
    `${ev ? `${String(ev.status)} ${ev.reason ?? ""}`.trim() : errorDetail(r)}${hit ? `; handler ran` : ""}`,
  );
}

export async function runProbe(h: Harness, p: Probe): Promise<ProbeResult> {
  try {
    const { status, detail } = await p.run(h);
    return { id: p.id, metric: p.metric, status, detail };
  } catch (err) {
    return { id: p.id, metric: p.metric, status: "missed", detail: `probe could not run: ${(err as Error).message}` };
  }
}
