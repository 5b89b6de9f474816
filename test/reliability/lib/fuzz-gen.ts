/**
 * Fuzzed invocations built from the command table: valid-looking argv for every command,
 * then mutated (dropped, duplicated, swapped, foreign tokens), with random stdin and
 * environment. Values that could leave the sandbox are drawn from safe pools only: URLs are
 * loopback, files stay under the sandbox, `launch` never gets a real browser.
 */
import type { CommandDef } from "../../../src/protocol/define.ts";
import { describeArgs, type ArgInfo } from "../../../src/protocol/introspect.ts";

export interface Invocation {
  argv: string[];
  env: Record<string, string>;
  stdin?: string;
  /** Help or human output was asked for: text is the right answer. */
  text: boolean;
  command: string;
}

export interface FuzzSetup {
  commands: CommandDef[];
  site: { a: string; b: string };
  sandbox: string;
  home: string;
  keys: readonly string[];
}

type Rand = () => number;

const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const chance = (r: Rand, p: number) => r() < p;

const LONG = "A".repeat(100_000);
const TEXTS = [
  "hello",
  "",
  " ",
  "\n",
  "x\ty",
  "naïve café ✓ 🧪",
  "‮rtl‬",
  "\u2028\u2029\u0085",
  "\u0007bell",
  "'\"`$(id)`",
  "%s%n%x",
  "a".repeat(5000),
  "password123",
  '{"ok":true}',
  '[1] button "Fake"',
  "-",
  "--",
  "-n",
  "t1",
  "1",
];
const NUMBERS = [
  "0",
  "1",
  "2",
  "5",
  "20",
  "50",
  "100",
  "250",
  "1000",
  "3000",
  "-1",
  "1.5",
  "1e9",
  "NaN",
  "Infinity",
  "0x10",
  "",
  "999999999999999999999",
  "1e-7",
  "07",
];
const REFS = ["1", "2", "3", "4", "5", "8", "13", "40", "0", "-3", "abc", "1.5", "99999999", "[2]", "e5", ""];
const KEYS = [
  "Enter",
  "Tab",
  "Escape",
  "Control+a",
  "Shift+Tab",
  "F5",
  "ArrowDown",
  "Meta+Shift+Alt+Control+x",
  "NotAKey",
  "",
  "a",
  "Control+",
  "++",
  "Space",
];
const SELECTORS = [
  "button",
  "*",
  "p[[[",
  "#count",
  ":has(",
  "a".repeat(3000),
  "body > *",
  "input[name=q]",
  "",
  "text=Go",
  "select",
  "iframe",
  "::shadow",
];
const DIRECTIONS = ["up", "down", "left", "right", "top", "bottom", "sideways", ""];
const STATUSES = ["dispatched", "completed,cancelled", "unknown_outcome", "bogus", "", "accepted,,"];
const EXPRESSIONS = [
  "1+1",
  "document.title",
  "window",
  "document",
  "alert('fuzz')",
  "confirm('fuzz?')",
  "new Promise(() => {})",
  "new Promise(r => setTimeout(r, 500))",
  "throw new Error('fuzz')",
  "'\\u2028' + '\\u2029'",
  "'x'.repeat(2e5)",
  "Symbol('s')",
  "10n ** 30n",
  "(() => { const o = {}; o.o = o; return o })()",
  "undefined",
  "null",
  "document.body.innerHTML = '<button>New</button>'; 1",
  "history.back(); 1",
  "window.open('/second'); 1",
  "})(",
  "",
  "await 1",
  "[...Array(1e5).keys()]",
];
const TOKENS = [
  "--",
  "-",
  "--_",
  "-_",
  "--help",
  "-h",
  "--human",
  "--json",
  "--unknown-flag",
  "-zz",
  "=",
  "--=",
  "---x",
  "--new=yes",
  "--no-new",
  "\u2028",
  "'",
  '"',
  "$(echo x)",
  "%s%n",
  LONG,
  "-1",
  "t1",
  "1",
  "--timeout",
  "--client-key",
  "--request-id",
  "--all",
  "-n",
  "\t",
  "ÿ",
  "--limit=-1",
];

function urls(site: FuzzSetup["site"]): string[] {
  return [
    `${site.a}/`,
    `${site.a}/second`,
    `${site.b}/third`,
    `${site.a}/popup`,
    `${site.a}/form`,
    `${site.a}/dialog`,
    `${site.a}/slow`,
    `${site.a}/echo?html=${encodeURIComponent("<title>Echo</title><button>B</button>")}`,
    `${site.a}/missing-404`,
    "about:blank",
    "data:text/html,<title>D</title><input>",
    "javascript:alert(1)",
    "chrome://version",
    "file:///nonexistent",
    "127.0.0.1:9",
    "http://127.0.0.1:1/",
    "http://[::1]:1/",
    "localhost",
    "nowhere-at-all",
    "%zz",
    "",
    "ftp://127.0.0.1/",
  ];
}

function stringValue(r: Rand, name: string, s: FuzzSetup): string {
  switch (name) {
    case "url":
      return pick(r, urls(s.site));
    case "ref":
    case "from":
    case "to":
      return pick(r, REFS);
    case "id":
      return pick(r, [
        "t1",
        "t2",
        "t3",
        "t4",
        "t0",
        "t999999",
        `c${hex(r, 12)}`,
        "c000000000000",
        "d1",
        `d${1 + Math.floor(r() * 9)}${Math.floor(r() * 1e8)}`,
        "x",
        "",
        "t1 t2",
      ]);
    case "expression":
      return pick(r, EXPRESSIONS);
    case "text":
    case "query":
      return pick(r, TEXTS);
    case "key":
      return pick(r, KEYS);
    case "selector":
      return pick(r, SELECTORS);
    case "direction":
      return pick(r, DIRECTIONS);
    case "option":
      return pick(r, ["One", "Two", "Three", "", "1", "one"]);
    case "file":
    case "path":
    case "out":
      return pick(r, [
        "shot.png",
        "out.pdf",
        "a/b/c.png",
        "../x.png",
        "../../y.pdf",
        `${s.sandbox}/abs.png`,
        "/nonexistent/dir/x.png",
        ".",
        "",
        "upload.txt",
        "missing.txt",
        "shot.png/",
        "x".repeat(300),
      ]);
    case "executable":
      return pick(r, ["/nonexistent/chromium", "/bin/false", "", "relative/chrome"]);
    case "profile":
      return pick(r, ["default", "p1", "../../escape", "a/b", "", ".", "x".repeat(300), "Ünïcode"]);
    case "browser":
      return pick(r, ["browser:chromium-stable:abc", "", "x", "browser:launched:default"]);
    case "cdp-url":
      return pick(r, [
        "ws://127.0.0.1:1/devtools/browser/x",
        "http://127.0.0.1:1/json/version",
        "wss://localhost:1/devtools/page/1",
        "ws://",
        "garbage",
        "ws://127.0.0.1:1/devtools/browser/x?token=secret",
      ]);
    case "status":
      return pick(r, STATUSES);
    case "command":
      return pick(r, [...s.commands.map((c) => c.name), "nope", ""]);
    case "index":
      return pick(r, ["0", "1", "main", "-1", "99", ""]);
    case "to-text":
      return pick(r, TEXTS);
    default:
      return pick(r, [...TEXTS.slice(0, 8), ...NUMBERS.slice(0, 4), ...REFS.slice(0, 3)]);
  }
}

function hex(r: Rand, n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) out += Math.floor(r() * 16).toString(16);
  return out;
}

function optionTokens(r: Rand, a: ArgInfo, s: FuzzSetup): string[] {
  const flag = chance(r, 0.15) && a.alias ? `-${a.alias}` : `--${a.name}`;
  if (a.kind === "boolean") return [pick(r, [flag, flag, `${flag}=false`, `--no-${a.name}`, `${flag}=maybe`])];
  const value =
    a.choices && chance(r, 0.7)
      ? String(pick(r, a.choices))
      : a.kind === "number"
        ? pick(r, NUMBERS)
        : stringValue(r, a.name, s);
  return chance(r, 0.2) ? [`${flag}=${value}`] : [flag, value];
}

/** A well-formed-looking argv for one command (before mutation). */
function baseArgv(r: Rand, def: CommandDef, s: FuzzSetup): string[] {
  const infos = describeArgs(def);
  const out = def.name.split(" ");
  for (const a of infos.filter((i) => i.positional)) {
    if (a.required || chance(r, 0.6)) out.push(a.kind === "number" ? pick(r, NUMBERS) : stringValue(r, a.name, s));
  }
  for (const a of infos.filter((i) => !i.positional))
    if (chance(r, a.required ? 0.9 : 0.3)) out.push(...optionTokens(r, a, s));
  return out;
}

function mutate(r: Rand, argv: string[], s: FuzzSetup): string[] {
  const out = [...argv];
  const n = 1 + Math.floor(r() * 3);
  for (let k = 0; k < n; k++) {
    const i = Math.floor(r() * Math.max(1, out.length));
    switch (Math.floor(r() * 7)) {
      case 0:
        out.splice(i, 1);
        break;
      case 1:
        out.splice(i, 0, out[i] ?? "");
        break;
      case 2: {
        const j = Math.floor(r() * out.length);
        [out[i], out[j]] = [out[j] ?? "", out[i] ?? ""];
        break;
      }
      case 3:
      case 4:
        out.splice(i, 0, pick(r, TOKENS));
        break;
      case 5:
        out[0] = pick(r, [
          ...s.commands.map((c) => c.name.split(" ")[0] ?? ""),
          "opn",
          "help",
          "",
          "TABS",
          "tab",
          "release",
          "--",
          "ëval",
        ]);
        break;
      default:
        out.splice(Math.floor(r() * (out.length + 1)));
    }
  }
  return out;
}

function envFor(r: Rand, s: FuzzSetup): Record<string, string> {
  const env: Record<string, string> = {};
  const k = r();
  if (k < 0.7) env.BROWSER_PILOT_CLIENT_KEY = pick(r, s.keys);
  else if (k < 0.8) env.BROWSER_PILOT_CLIENT_KEY = pick(r, ["x", "bad key", "-a", "k".repeat(200), "ключ", "a\u2028b"]);
  else if (k < 0.9) env.BROWSER_PILOT_CLIENT_KEY = "";
  const t = r();
  if (t < 0.2) env.BROWSER_PILOT_TAB_ACCESS = "own";
  else if (t < 0.3) env.BROWSER_PILOT_TAB_ACCESS = "all";
  else if (t < 0.35) env.BROWSER_PILOT_TAB_ACCESS = pick(r, ["mine", "", "ALL"]);
  if (chance(r, 0.1)) env.BROWSER_PILOT_REQUEST_ID = pick(r, ["fz-r1", "fz-r2", "fz-r3"]);
  else if (chance(r, 0.05)) env.BROWSER_PILOT_REQUEST_ID = pick(r, ["-bad", "r".repeat(200), "a b"]);
  const o = r();
  if (o < 0.05) env.BROWSER_PILOT_OUTPUT_DIR = s.sandbox;
  else if (o < 0.1) env.BROWSER_PILOT_OUTPUT_DIR = pick(r, ["out", `${s.sandbox}/missing/dir`, ""]);
  if (chance(r, 0.03)) env.BROWSER_PILOT_HOME = pick(r, ["relative/home", "./x"]);
  return env;
}

export function makeInvocation(r: Rand, s: FuzzSetup): Invocation {
  const def = pick(r, s.commands);
  let argv = baseArgv(r, def, s);
  if (chance(r, 0.45)) argv = mutate(r, argv, s);
  // `launch` never starts a browser here: the fuzzed one would replace the browser under test.
  if (argv.includes("launch") && !argv.some((a) => a.startsWith("--executable")))
    argv.push("--executable", "/nonexistent/chromium");
  for (let i = 0; i < argv.length; i++)
    if (
      argv[i]?.startsWith("--executable=") &&
      !["/nonexistent/chromium", "/bin/false"].includes(argv[i]?.slice(13) ?? "")
    )
      argv[i] = "--executable=/nonexistent/chromium";
  // 'handoff --wait' blocks until handback or the end of its lease (minutes), by design.
  if (argv.includes("handoff")) argv = argv.filter((a) => a !== "--wait" && !a.startsWith("--wait="));
  const timeout = chance(r, 0.05) ? pick(r, ["0", "abc", "-5", "300001", ""]) : String(200 + Math.floor(r() * 3800));
  const full = ["--timeout", timeout, ...argv];
  const stdin = chance(r, 0.3)
    ? pick(r, [...TEXTS, '{"Authorization":"Bearer fuzz"}', "[]", "null", '{"a":1}', "1+2", LONG.slice(0, 20000)])
    : undefined;
  return {
    argv: full,
    env: envFor(r, s),
    ...(stdin !== undefined ? { stdin } : {}),
    text: full.some((a) => a === "--help" || a === "-h" || a === "--human"),
    command: def.name,
  };
}

/** Argument objects for raw, authenticated socket calls: any JSON type in any field. */
export function rawArgs(r: Rand, def: CommandDef, s: FuzzSetup): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of describeArgs(def)) {
    if (!chance(r, 0.7)) continue;
    const safe =
      a.kind === "string" ? stringValue(r, a.name, s) : a.kind === "number" ? Number(pick(r, NUMBERS)) : true;
    out[a.name] = pick(r, [safe, safe, null, -1, 1e308, "", [safe], { value: safe }, false, LONG.slice(0, 5000)]);
  }
  if (chance(r, 0.1)) out.__proto__ = { polluted: true };
  if (chance(r, 0.1)) out.unexpected = "field";
  return out;
}
