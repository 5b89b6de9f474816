/**
 * The host policy under fuzzing. First fuzzed policy files through the parser (each accepted,
 * or refused with policy_invalid and a field; a key section never wider than the global rules).
 * Then fuzzed policies written to a live broker's home (valid, broken, group- or
 * world-writable) with fuzzed commands and page actions under each against real Chromium: a
 * denied command, option or origin never runs, and no request for a denied origin reaches
 * the server (its own log, not bp's word, is the judge).
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { originVerdict } from "../../../src/protocol/policy-match.ts";
import { deniedBy, parsePolicy, rulesFor, type Policy } from "../../../src/protocol/policy.ts";
import { BpError } from "../../../src/shared/errors.ts";
import { PAGES, startFixtureServer } from "../../support/fixture-server.ts";
import { startUserBrowser } from "../../support/user-browser.ts";
import { trackRoot } from "../lib/cpu.ts";
import { codeOf, LOOPBACK_FLAGS, makeLab, rng, running } from "../lib/lab.ts";
import { DENY_ENTRIES, makePolicy, type PolicyWorld } from "../lib/policy-gen.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";

const KEYS = ["pz-0", "pz-1"];
/** Requests that reached the fixture server, as "host/n". */
const seen = new Set<string>();

function startPolicySite() {
  return startFixtureServer({
    ...PAGES,
    "/probe": (url) => {
      seen.add(`${url.host}/${url.searchParams.get("n") ?? ""}`);
      return "<!doctype html><title>Probe</title><p>probe</p>";
    },
    "/redir": (url) => new Response(null, { status: 302, headers: { location: url.searchParams.get("to") ?? "/" } }),
  });
}

/** Argv that runs each deny entry's command (or option) for real. */
const ARGV: Record<string, string[]> = {
  eval: ["eval", "1+1"],
  screenshot: ["screenshot"],
  "cookies --values": ["cookies", "--values"],
  "net mock": ["net", "mock", "*/never-*", "--body", "x"],
  net: ["net", "--limit", "1"],
  upload: ["upload", "1", "/nonexistent/file.txt"],
  download: ["download", "dl999"],
  handoff: ["handoff", "--tab", "t99999"],
  "connect --cdp-url": ["connect", "--cdp-url", "ws://127.0.0.1:9/devtools/browser/x"],
  snapshot: ["snapshot", "--limit", "1"],
  tabs: ["tabs"],
  tab: ["tab", "t999"],
  cookies: ["cookies"],
  pdf: ["pdf"],
  read: ["read"],
  find: ["find", "p"],
  click: ["click", "999"],
  wait: ["wait", "--text", "never", "--timeout", "300"],
  open: ["open", "about:blank"],
};

function parseOutcome(text: string): Promise<{ policy?: Policy; field?: string; crash?: string }> {
  return parsePolicy(text).then(
    (policy) => ({ policy }),
    (err: unknown) =>
      err instanceof BpError && err.code === "policy_invalid" && typeof err.context?.field === "string"
        ? { field: err.context.field }
        : { crash: String(err).slice(0, 200) },
  );
}

export const policyPart: Part = {
  name: "policy",
  title: "Host policy under fuzzing",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const nParse = ctx.count ?? (ctx.scale === "full" ? 20_000 : 400);
    const nLive = ctx.count !== undefined ? Math.ceil(ctx.count / 10) : ctx.scale === "full" ? 600 : 54;
    const site = startPolicySite();
    const rand = rng(ctx.seed);
    const world: PolicyWorld = { a: site.a, b: site.b, keys: KEYS, dirs: ["/tmp", "/tmp/bp-up"] };
    const rows = {
      parse: new Tally(
        `${nParse} fuzzed policy files through the parser, seed ${ctx.seed}`,
        "each accepted, or refused with policy_invalid naming a field; 0 crashes",
      ),
      narrow: new Tally(
        "per-key rules of the accepted ones, against every command and 20 URLs each",
        "0 keys wider than the global rules",
      ),
      live: new Tally(
        `the commands and opens among ${nLive} fuzzed steps under fuzzed policies written to a live broker's home (real Chromium)`,
        "0 escapes: every denied command, option or navigation refused with policy_denied; every call under a broken or writable file policy_invalid",
      ),
      page: new Tally(
        "the page requests among them to an origin the policy denies (open, and from eval: fetch, navigation, popup, iframe, redirect)",
        "0 denied requests reached the server",
      ),
      broker: new Tally("broker checks after every policy change", "same broker process, answering"),
    };
    let accepted = 0;
    const urls = [
      `${site.a}/probe`,
      `${site.b}/probe`,
      "https://example.com/",
      "data:text/html,x",
      "http://a.test/",
      "about:blank",
      `${site.b}/echo`,
    ];
    const commands = Object.keys(ARGV);
    for (let i = 0; i < nParse; i++) {
      const out = await parseOutcome(makePolicy(rand, world));
      rows.parse.record(out.crash);
      if (!out.policy) continue;
      accepted++;
      const p = out.policy;
      const g = rulesFor(p, "nobody");
      for (const key of KEYS) {
        const k = rulesFor(p, key);
        let wider: string | undefined;
        for (const c of commands)
          if (deniedBy(g, c, {}) !== undefined && deniedBy(k, c, {}) === undefined) wider = `key ${key} allows '${c}'`;
        for (let j = 0; j < 20 && !wider; j++) {
          const u = `${pick(rand, urls)}?${j}`;
          if (originVerdict(g, u) && !originVerdict(k, u)) wider = `key ${key} allows ${u}`;
        }
        if (g.tabAccess === "own" && k.tabAccess !== "own") wider = `key ${key} widens tabAccess`;
        rows.narrow.record(wider);
      }
    }

    const user = await startUserBrowser({ url: `${site.a}/`, args: LOOPBACK_FLAGS });
    trackRoot(user.home);
    const lab = makeLab({ HOME: user.home });
    const policyFile = join(lab.home, "policy.json");
    const codes = new Map<string, number>();
    try {
      const connect = await lab.bp(["connect"], { key: KEYS[0], killAfterMs: 60_000 });
      if (connect.json?.ok !== true) throw new Error(`connect: ${connect.stdout}${connect.stderr}`);
      const brokerPid = lab.brokerPid() ?? 0;
      const t0 = performance.now();
      mkdirSync(lab.home, { recursive: true });
      let policy: Policy | undefined;
      let broken = false;
      let probe = 0;
      for (let i = 0; i < nLive; i++) {
        if (i % 6 === 0) {
          // A new policy: written as a host would (whole file), sometimes with a mode that must fail closed.
          writeFileSync(policyFile, "{}");
          chmodSync(policyFile, 0o600);
          if (i % 18 === 0) {
            // Fresh tabs on an allowed page now and then (popups pile up otherwise).
            for (const k of KEYS) await lab.bp(["close", "--all"], { key: k, killAfterMs: 30_000 });
            for (const k of KEYS) await lab.bp(["open", `${site.a}/second`, "--new"], { key: k, killAfterMs: 30_000 });
          }
          // Mostly policies the parser accepts (the parser's own row above covers the rest).
          let text = makePolicy(rand, world);
          let out = await parseOutcome(text);
          for (let t = 0; t < 5 && !out.policy && chance(rand, 0.8); t++) {
            text = makePolicy(rand, world);
            out = await parseOutcome(text);
          }
          const mode = chance(rand, 0.12) ? pick(rand, [0o620, 0o602, 0o666]) : 0o600;
          writeFileSync(policyFile, text);
          chmodSync(policyFile, mode);
          policy = out.policy;
          broken = !out.policy || mode !== 0o600;
          const alive = running(brokerPid) && lab.brokerPid() === brokerPid;
          rows.broker.record(alive ? undefined : `broker ${brokerPid} gone after policy ${text.slice(0, 120)}`);
        }
        const key = pick(rand, KEYS);
        const kind = rand();
        const rules = policy ? rulesFor(policy, key) : undefined;
        if (kind < 0.3) {
          const entry = pick(rand, DENY_ENTRIES);
          const argv = ARGV[entry] ?? ["tabs"];
          const r = await lab.bp(argv, { key, killAfterMs: 60_000 });
          const code = codeOf(r);
          codes.set(code, (codes.get(code) ?? 0) + 1);
          const denied = rules
            ? rules.deny.some((d) => d === entry || entry.startsWith(`${d} `) || entry.split(" --")[0] === d)
            : false;
          let problem: string | undefined;
          if (broken && code !== "policy_invalid") problem = `broken policy, ${argv.join(" ")} answered ${code}`;
          else if (!broken && denied && code !== "policy_denied")
            problem = `'${entry}' denied, ${argv.join(" ")} answered ${code}`;
          else if (
            !broken &&
            !denied &&
            (code === "policy_invalid" || (code === "policy_denied" && r.json?.context?.rule === "deny"))
          )
            problem = `'${entry}' allowed, ${argv.join(" ")} answered ${code} ${String(r.json?.error).slice(0, 100)}`;
          rows.live.record(problem);
          continue;
        }
        // Mostly an origin the policy in force denies: that is where an escape would show.
        const n = ++probe;
        const candidates = [site.a, site.b].map((o) => `${o}/probe?n=${n}`);
        const deniedOnes = rules ? candidates.filter((u) => originVerdict(rules, u)) : [];
        const target = deniedOnes.length > 0 && chance(rand, 0.8) ? pick(rand, deniedOnes) : pick(rand, candidates);
        const host = new URL(target).host;
        const verdict = rules ? originVerdict(rules, target) : undefined;
        if (kind < 0.45) {
          const r = await lab.bp(["open", target], { key, killAfterMs: 60_000 });
          const code = codeOf(r);
          codes.set(code, (codes.get(code) ?? 0) + 1);
          let problem: string | undefined;
          if (broken && code !== "policy_invalid") problem = `broken policy, open answered ${code}`;
          else if (!broken && verdict && code !== "policy_denied")
            problem = `open ${target} denied (${verdict.rule}), answered ${code}`;
          rows.live.record(problem);
          await Bun.sleep(50);
          if (verdict || broken)
            rows.page.record(seen.has(`${host}/${n}`) ? `open ${target} reached the server` : undefined);
          continue;
        }
        if (broken || !rules || rules.deny.includes("eval")) continue;
        const how = pick(rand, ["fetch", "navigate", "popup", "iframe", "redirect"]);
        const quoted = JSON.stringify(target);
        const exprs: Record<string, string> = {
          fetch: `fetch(${quoted}).then(() => 1, () => 0)`,
          navigate: `setTimeout(() => { location.href = ${quoted} }, 0); 1`,
          popup: `window.open(${quoted}, '_blank'); 1`,
          iframe: `const f = document.createElement('iframe'); f.src = ${quoted}; document.body.append(f); 1`,
          redirect: `setTimeout(() => { location.href = ${JSON.stringify(`${site.a}/redir?to=${encodeURIComponent(target)}`)} }, 0); 1`,
        };
        const r = await lab.bp(["eval", exprs[how] ?? "1"], { key, killAfterMs: 60_000 });
        codes.set(codeOf(r), (codes.get(codeOf(r)) ?? 0) + 1);
        await Bun.sleep(250);
        if (verdict)
          rows.page.record(
            seen.has(`${host}/${n}`) ? `${how} to ${target} (${verdict.rule}) reached the server` : undefined,
          );
      }
      ctx.log(`live: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      writeFileSync(policyFile, "{}");
      chmodSync(policyFile, 0o600);
      const last = await lab.bp(["eval", "1+1"], { key: KEYS[0], killAfterMs: 30_000 });
      rows.broker.record(
        running(brokerPid) && lab.brokerPid() === brokerPid && codeOf(last) !== "internal_error"
          ? undefined
          : `broker at the end: ${codeOf(last)}`,
      );
    } finally {
      await lab.cleanup();
      await user.stop();
      site.stop();
    }
    const top = [...codes].sort((x, y) => y[1] - x[1]);
    return {
      part: "policy",
      title: policyPart.title,
      rows: Object.values(rows).map((t) => t.row),
      wallSeconds: (performance.now() - started) / 1000,
      figures: {
        "policies accepted by the parser": `${accepted} of ${nParse}`,
        "reply codes": top.map(([k, c]) => `${k} ×${c}`).join(", "),
      },
    };
  },
};

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const chance = (r: Rand, p: number) => r() < p;
