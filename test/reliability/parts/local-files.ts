/**
 * Local-file schemes: spellings of file: URLs into the system, bp's private store and the
 * broker locator, through open, open --new and history steps. Without the opt-in every one is
 * refused; with it, bp's own home stays refused however the path is spelled. No reply may
 * carry a file's content or the locator's token.
 */
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codeOf, makeLab, type Lab, type Reply } from "../lib/lab.ts";
import { Tally, type Part, type PartContext, type PartReport } from "../lib/report.ts";

const KEY = "file-agent";
const PASSWD_LINE = "root:x:0:0";

function tokenOf(lab: Lab): string {
  return (JSON.parse(readFileSync(join(lab.home, "broker-locator.json"), "utf8")) as { token: string }).token;
}

/** Every spelling an agent (or a page's text misleading it) might try for one path. */
function spellings(path: string): string[] {
  const encoded = path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`);
  const dotted = path.replace(/\/([^/]+)$/, "/./$1");
  return [
    `file://${path}`,
    `FILE://${path}`,
    `file:${path}`,
    `file://localhost${path}`,
    ` file://${path}`,
    `file://${encoded}`,
    `file://${dotted}`,
    `file://${path}?x=1#y`,
    `fIlE:///${path.slice(1)}`,
  ];
}

function leaked(r: Reply, token: string): string | undefined {
  if (r.stdout.includes(PASSWD_LINE)) return "a reply carried /etc/passwd";
  if (r.stdout.includes(token)) return "a reply carried the locator token";
  return undefined;
}

export const localFilesPart: Part = {
  name: "local-files",
  title: "Local-file schemes",
  async run(ctx: PartContext): Promise<PartReport> {
    const started = performance.now();
    const rows = {
      refused: new Tally(
        "file: URLs into the system, the store and the locator, without the opt-in (open, open --new; 9 spellings each)",
        "invalid_argument on url, nothing opened",
      ),
      home: new Tally(
        "file: URLs into bp's home with BROWSER_PILOT_ALLOW_FILE_URLS=1 (direct, through a symlink, with ..; 9 spellings each)",
        "invalid_argument on url",
      ),
      allowed: new Tally("a file outside bp's home with the opt-in", "opens and reads"),
      leaks: new Tally("every reply of the part", "no file content, no locator token"),
    };
    const plain = makeLab();
    const opted = makeLab({ BROWSER_PILOT_ALLOW_FILE_URLS: "1" });
    try {
      for (const lab of [plain, opted]) {
        const r = await lab.bp(["launch", "--headless", "--executable", lab.chromium], {
          key: KEY,
          killAfterMs: 60_000,
        });
        if (r.json?.ok !== true) throw new Error(`launch: ${r.stdout.slice(0, 200)}`);
        await lab.bp(["open", "data:text/html,<title>start</title>", "--new"], { key: KEY, killAfterMs: 30_000 });
      }
      const plainToken = tokenOf(plain);
      const targets = [
        "/etc/passwd",
        join(plain.home, "broker-locator.json"),
        join(plain.home, "store"),
        "/proc/self/environ",
      ];
      const reps = ctx.reps ?? (ctx.scale === "full" ? 3 : 1);
      for (let rep = 0; rep < reps; rep++) {
        for (const path of targets) {
          for (const url of spellings(path)) {
            for (const args of [
              ["open", url],
              ["open", url, "--new"],
            ]) {
              const r = await plain.bp(args, { key: KEY, killAfterMs: 30_000 });
              rows.leaks.record(leaked(r, plainToken));
              rows.refused.record(
                codeOf(r) === "invalid_argument" && r.json?.context?.field === "url"
                  ? undefined
                  : `${args.join(" ")}: ${r.stdout.slice(0, 200)}`,
              );
            }
          }
        }
      }
      const tabs = await plain.bp(["tabs"], { key: KEY, killAfterMs: 30_000 });
      rows.refused.record(
        ((tabs.json?.tabs as { url: string }[] | undefined) ?? []).some((t) => t.url.startsWith("file:"))
          ? `a file: tab is listed: ${tabs.stdout.slice(0, 200)}`
          : undefined,
      );

      const optedToken = tokenOf(opted);
      const outside = join(opted.root, "outside");
      writeFileSync(join(opted.sandbox, "note.txt"), "an allowed note");
      symlinkSync(opted.home, outside);
      const homePaths = [
        join(opted.home, "broker-locator.json"),
        join(outside, "broker-locator.json"),
        `${opted.sandbox}/../../../../home/broker-locator.json`,
        `${opted.home}/`,
      ];
      for (let rep = 0; rep < reps; rep++) {
        for (const path of homePaths) {
          for (const url of spellings(path)) {
            const r = await opted.bp(["open", url], { key: KEY, killAfterMs: 30_000 });
            rows.leaks.record(leaked(r, optedToken));
            rows.home.record(
              codeOf(r) === "invalid_argument" && r.json?.context?.field === "url"
                ? undefined
                : `open ${url}: ${r.stdout.slice(0, 200)}`,
            );
          }
        }
        await rows.allowed.attempt(async () => {
          const open = await opted.bp(["open", `file://${opted.sandbox}/note.txt`], { key: KEY, killAfterMs: 30_000 });
          const read = await opted.bp(["read"], { key: KEY, killAfterMs: 30_000 });
          return open.json?.ok === true && String(read.json?.text).includes("an allowed note")
            ? undefined
            : `${open.stdout.slice(0, 120)} ${read.stdout.slice(0, 120)}`;
        });
      }
    } finally {
      await plain.cleanup();
      await opted.cleanup();
    }
    return {
      part: "local-files",
      title: "Local-file schemes",
      rows: Object.values(rows).map((t) => t.row),
      wallSeconds: (performance.now() - started) / 1000,
      figures: {},
    };
  },
};
