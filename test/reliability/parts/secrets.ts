/**
 * Secrets an agent hands over and numbers it gets wrong: header values given to `net headers`
 * (any name, argv or stdin) never come back in a reply, a rule listing, a request's details or a
 * command record; a password inside an opened URL answers the server's challenge but never
 * reaches a reply or the launched profile's files; a ref beyond the largest safe integer is
 * invalid_argument echoing what was given, never another ref.
 */
import { AUTH_PASSWORD, AUTH_USER } from "../../support/fixture-server.ts";
import { codeOf, makeLab, replyProblem, until, type Lab } from "../lib/lab.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";
import { startSite } from "../lib/site.ts";
import { filesContaining } from "../../support/files-containing.ts";

const KEY = "secrets-agent";
const HEADER_NAMES = ["X-Custom-Token", "Private-Token", "X-Vault-Token", "X-Api-Key", "Authorization", "X-Anything"];

async function ok(
  lab: Lab,
  args: string[],
  stdin?: string,
): Promise<{ json: Record<string, unknown>; stdout: string }> {
  const r = await lab.bp(args, { key: KEY, killAfterMs: 60_000, ...(stdin !== undefined ? { stdin } : {}) });
  if (r.json?.ok !== true) throw new Error(`${args.join(" ")}: ${r.stdout || r.stderr}`);
  return { json: r.json, stdout: r.stdout };
}

export const secretsPart: Part = {
  name: "secrets",
  title: "Secrets given in headers and URLs, out-of-range refs",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const reps = ctx.reps ?? (ctx.scale === "short" ? 1 : 3);
    const site = startSite();
    const rows = {
      headers: new Tally(
        `header values given to 'net headers' (${HEADER_NAMES.join(", ")}; argv and --stdin)`,
        "never in its reply, net rules, net show of a request that carried them, or its command record",
      ),
      urlPassword: new Tally(
        "open http://user:password@… (Basic auth page), then disconnect",
        "page served to the credentials; the password in no reply and no file of the launched profile",
      ),
      bigRef: new Tally(
        "click, type, hover with refs 99999999999999999999, 9007199254740993, 123456789012345678901234567890",
        "invalid_argument, field ref, the input echoed",
      ),
    };
    let carried = 0;
    try {
      for (let rep = 0; rep < reps; rep++) {
        const lab = makeLab();
        try {
          await ok(lab, ["launch", "--headless", "--executable", lab.chromium]);
          await ok(lab, ["open", `${site.a}/app`, "--new"]);
          for (const [i, name] of HEADER_NAMES.entries()) {
            for (const via of ["argv", "stdin"] as const) {
              await rows.headers.attempt(async () => {
                const secret = `sec-${rep}-${i}-${via}-${crypto.randomUUID().slice(0, 8)}`;
                const set =
                  via === "argv"
                    ? await ok(lab, ["net", "headers", "*/api/user*", `${name}: ${secret}`])
                    : await ok(lab, ["net", "headers", "*/api/user*", "--stdin"], `${name}: ${secret}\n`);
                await ok(lab, ["eval", "fetch('/api/user').then(r => r.status)"]);
                const reqs = (await ok(lab, ["net", "--url", "*/api/user*", "--limit", "1000"])).json.requests as {
                  id: number;
                }[];
                const last = reqs.at(-1);
                // The headers as sent come in an event of their own, a moment after the request's.
                let shown = "";
                for (let t = 0; last && t < 40 && !shown.includes(name); t++) {
                  if (t > 0) await Bun.sleep(50);
                  shown = (await ok(lab, ["net", "show", String(last.id)])).stdout;
                }
                const rules = (await ok(lab, ["net", "rules"])).stdout;
                const recs = (await ok(lab, ["commands", "--limit", "100"])).json.commands as {
                  id: string;
                  method: string;
                }[];
                const rec = recs.find((c) => c.method === "net headers");
                const record = rec ? (await ok(lab, ["command", rec.id])).stdout : "";
                await ok(lab, ["net", "remove", "--all"]);
                const where = [
                  ["reply", set.stdout],
                  ["net rules", rules],
                  ["net show", shown],
                  ["command record", record],
                ]
                  .filter(([, text]) => (text ?? "").includes(secret))
                  .map(([w]) => w);
                if (!last) return `${name} via ${via}: no request journalled`;
                // Chrome does not always report the headers as sent: then net show has nothing to mask.
                if (shown.includes(name)) carried++;
                return where.length > 0 ? `${name} via ${via}: value shown in ${where.join(", ")}` : undefined;
              });
            }
          }
          for (const ref of ["99999999999999999999", "9007199254740993", "123456789012345678901234567890"]) {
            for (const args of [
              ["click", ref],
              ["type", ref, "x"],
              ["hover", ref],
            ]) {
              await rows.bigRef.attempt(async () => {
                const r = await lab.bp(args, { key: KEY, killAfterMs: 30_000 });
                const bad = replyProblem(r);
                if (bad) return `${args.join(" ")}: ${bad}`;
                const c = r.json?.context as { field?: string; received?: string } | undefined;
                return codeOf(r) === "invalid_argument" && c?.field === "ref" && String(r.json?.error).includes(ref)
                  ? undefined
                  : `${args.join(" ")}: ${r.stdout.slice(0, 200)}`;
              });
            }
          }
          await rows.urlPassword.attempt(async () => {
            const url = new URL(`${site.a}/basic`);
            url.username = AUTH_USER;
            url.password = AUTH_PASSWORD;
            const opened = await ok(lab, ["open", url.href, "--new"]);
            if (opened.json.title !== "Members") return `not let in: ${opened.stdout.slice(0, 200)}`;
            const replies = [
              opened.stdout,
              (await ok(lab, ["tabs"])).stdout,
              (await ok(lab, ["eval", "location.href"])).stdout,
              (await ok(lab, ["reload"])).stdout,
            ];
            await ok(lab, ["disconnect"]);
            await until(() => lab.launched().length === 0, 15_000, "the launched browser to exit");
            const files = filesContaining(lab.home, AUTH_PASSWORD);
            if (replies.some((r) => r.includes(AUTH_PASSWORD))) return "the password in a reply";
            return files.length > 0
              ? `the password in ${files.map((f) => f.slice(lab.home.length)).join(", ")}`
              : undefined;
          });
        } catch (err) {
          rows.headers.record(`harness: ${err instanceof Error ? err.message : String(err)}`);
        } finally {
          await lab.cleanup();
        }
        ctx.log(`secrets: round ${rep + 1}/${reps}`);
      }
    } finally {
      site.stop();
    }
    return {
      part: "secrets",
      title: secretsPart.title,
      rows: Object.values(rows).map((t) => t.row),
      wallSeconds: (performance.now() - started) / 1000,
      figures: {
        "requests whose net show listed the given header (masked)": `${carried} of ${rows.headers.row.tried}`,
      },
    };
  },
};
