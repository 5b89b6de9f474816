import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";

const SRC = join(import.meta.dir, "../src");

/** `import … from "…" with { type: "macro" }` runs at build time; its result, not the module, is in the executable. */
const MACRO = /^\s*with\s*\{\s*type:\s*["']macro["']\s*\}/;

function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  // Static imports only: `import x from`, `export … from`, bare `import "…"`. Type-only imports are erased.
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+["']([^"']+)["']/gm)) {
    if (m[1] && !MACRO.test(text.slice((m.index ?? 0) + m[0].length))) out.push(m[1]);
  }
  for (const m of text.matchAll(/^import\s+["']([^"']+)["']/gm)) if (m[1]) out.push(m[1]);
  return out;
}

/** The modules a file imports as macros (run by the bundler, not at run time). */
function macroImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^import\s+[^;]*?from\s+["']([^"']+)["']/gm)]
    .filter((m) => MACRO.test(text.slice((m.index ?? 0) + m[0].length)))
    .map((m) => m[1] ?? "");
}

/** Every local module a file names: static, type-only, re-exports and dynamic imports alike. */
function allLocalImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [
    ...[...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']/g)].map((m) => m[1] ?? ""),
    ...[...text.matchAll(/(?:^|\n)\s*import\s+["'](\.[^"']+)["']/g)].map((m) => m[1] ?? ""),
    ...[...text.matchAll(/import\(\s*["'](\.[^"']+)["']\s*\)/g)].map((m) => m[1] ?? ""),
  ];
  return specs.map((s) => resolve(dirname(file), s));
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (p.endsWith(".ts") && !p.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

/** Strongly connected components of more than one file (Tarjan), as sorted src-relative paths. */
function importCycles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, allLocalImports(f).filter((t) => files.includes(t))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const comp: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
      onStack.delete(w);
      comp.push(w);
    }
    if (comp.length > 1) cycles.push(comp.map((f) => relative(SRC, f)).sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}

const DOC = readFileSync(join(import.meta.dir, "../docs/architecture.md"), "utf8");

/** The lines of the first fenced block after the heading `## heading`. */
function pictureAfter(heading: string): string[] {
  const at = DOC.indexOf(`\n## ${heading}\n`);
  if (at < 0) throw new Error(`docs/architecture.md has no section ${heading}`);
  const open = DOC.indexOf("\n```", at);
  const body = DOC.indexOf("\n", open + 1) + 1;
  return DOC.slice(body, DOC.indexOf("\n```", body)).split("\n");
}

/** The src picture: each row `name ─► target target …` (folders end in "/"; words in parentheses are notes). */
function srcPicture(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of pictureAfter("Source layout")) {
    const m = /^(\S+)\s+─►\s*(.*)$/.exec(line);
    if (!m?.[1]) continue;
    const targets = (m[2] ?? "")
      .replace(/\(.*?\)/g, "")
      .split(/\s+/)
      .filter((w) => w !== "");
    rows.set(m[1], targets);
  }
  return rows;
}

/** A src file's top-level entry: its folder with a trailing "/", or the file itself. */
function topOf(file: string): string {
  const rel = relative(SRC, file);
  const slash = rel.indexOf("/");
  return slash < 0 ? rel : rel.slice(0, slash + 1);
}

/**
 * The broker's layers, top to bottom, read from the picture in docs/architecture.md: `name
 * [paths]`, a path being a folder ("x/"), a file, or "*.ts" (the broker's own top-level files).
 * A file may import its own layer or any layer below it, never one above. The first layer that
 * names a file is its layer.
 */
/** How specifically a layer's paths name a file: the matching path's length, 0 when none does. */
const BROKER_LAYERS: [layer: string, matches: (rel: string) => number][] = pictureAfter(
  "Inside the broker: one-way layers",
).flatMap((line) => {
  const m = /^(\w+)\s+\[([^\]]*)\]/.exec(line);
  if (!m?.[1]) return [];
  const paths = (m[2] ?? "").split(/\s+/).filter((p) => p !== "");
  const hit = (rel: string, p: string) =>
    p === "*.ts"
      ? /^broker\/[^/]+\.ts$/.test(rel)
      : p.endsWith("/")
        ? rel.startsWith(`broker/${p}`)
        : rel === `broker/${p}`;
  const matches = (rel: string) => Math.max(0, ...paths.filter((p) => hit(rel, p)).map((p) => p.length));
  return [[m[1], matches] as [string, (rel: string) => number]];
});

function brokerLayer(file: string): number | undefined {
  const rel = relative(SRC, file);
  // The most specific path wins: settle/requests/ sits below core, settle/ above it.
  let best: number | undefined;
  let bestLength = 0;
  BROKER_LAYERS.forEach(([, matches], i) => {
    const length = matches(rel);
    if (length > bestLength) [best, bestLength] = [i, length];
  });
  return best;
}

function dynamicImports(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? "");
}

/** Every src file reachable from `entry`, following static and dynamic local imports. */
function reachable(entry: string, follow: (f: string) => string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop() ?? "";
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of follow(file)) {
      if (!spec.startsWith(".")) continue;
      stack.push(resolve(dirname(file), spec));
    }
  }
  return seen;
}

describe("architecture", () => {
  test("the CLI never reaches CDP, broker, janitor or page code", () => {
    // Macros included: what they compute at build time is the CLI's too.
    const files = reachable(join(SRC, "cli/main.ts"), (f) => [
      ...staticImports(f),
      ...dynamicImports(f),
      ...macroImports(f),
    ]);
    const bad = [...files].map((f) => relative(SRC, f)).filter((f) => /^(cdp|broker|janitor|page)\//.test(f));
    expect(bad).toEqual([]);
    expect([...files].map((f) => relative(SRC, f))).toContain("protocol/cli-spec.ts");
    expect(files.size).toBeGreaterThan(5);
  });

  test("the CLI's start-up loads no Node built-in module (each costs every call 0.5-1.5 ms); they load where a rare path needs them", () => {
    const files = reachable(join(SRC, "main.ts"), staticImports);
    const builtins = [...files].flatMap((f) =>
      staticImports(f)
        .filter((s) => s.startsWith("node:") || !s.startsWith("."))
        .map((s) => `${relative(SRC, f)} → ${s}`),
    );
    // valibot is the one package a parse needs.
    expect(builtins.filter((b) => !b.endsWith("→ valibot"))).toEqual([]);
    expect(files.size).toBeGreaterThan(10);
  });

  test("the entry point loads broker and janitor only dynamically", () => {
    const statics = staticImports(join(SRC, "main.ts"));
    // The CLI, and the module whose locator read src/main.ts starts before the call begins (it imports nothing).
    expect(statics).toEqual(["./cli/locator-file.ts", "./cli/main.ts"]);
    expect(staticImports(join(SRC, "cli/locator-file.ts"))).toEqual([]);
    expect(dynamicImports(join(SRC, "main.ts")).sort()).toEqual(["./broker/main.ts", "./janitor/main.ts"]);
  });

  test("no import cycles in src/, type-only imports included", () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    expect(importCycles(files)).toEqual([]);
  });

  test("the cycle check finds a cycle made only of type imports", () => {
    const dir = mkdtempSync(join(tmpdir(), "bp-cycles-"));
    try {
      writeFileSync(join(dir, "a.ts"), 'import type { B } from "./b.ts";\nexport type A = B;\n');
      writeFileSync(join(dir, "b.ts"), 'export type { A as B } from "./a.ts";\n');
      writeFileSync(join(dir, "c.ts"), 'import type { A } from "./a.ts";\nexport type C = A;\n');
      expect(importCycles(sourceFiles(dir)).map((c) => c.map((f) => f.split("/").pop()))).toEqual([["a.ts", "b.ts"]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the picture of src/ in docs/architecture.md matches the code: a row per folder, an arrow per import between folders, no unused arrow", () => {
    const picture = srcPicture();
    const tops = readdirSync(SRC)
      .filter((n) => statSync(join(SRC, n)).isDirectory() || (n.endsWith(".ts") && !n.endsWith(".test.ts")))
      .map((n) => (statSync(join(SRC, n)).isDirectory() ? `${n}/` : n));
    expect([...picture.keys()].sort()).toEqual(tops.sort());
    const used = new Set<string>();
    const unexpected: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = topOf(file);
      for (const target of allLocalImports(file)) {
        if (relative(SRC, target).startsWith("..")) continue;
        const to = topOf(target);
        if (to === from) continue;
        if (picture.get(from)?.includes(to)) used.add(`${from} ─► ${to}`);
        else unexpected.push(`${relative(SRC, file)} ─► ${relative(SRC, target)}`);
      }
    }
    expect(unexpected).toEqual([]);
    const drawn = [...picture].flatMap(([from, targets]) => targets.map((to) => `${from} ─► ${to}`));
    expect(drawn.filter((a) => !used.has(a))).toEqual([]);
  });

  test("every broker file is in one layer of the picture, and the picture names every broker folder", () => {
    expect(BROKER_LAYERS.map(([name]) => name)).toEqual([
      "entry",
      "handlers",
      "act",
      "observe",
      "context",
      "settle",
      "core",
      "requests",
    ]);
    const unplaced = sourceFiles(join(SRC, "broker"))
      .filter((f) => brokerLayer(f) === undefined)
      .map((f) => relative(SRC, f));
    expect(unplaced).toEqual([]);
  });

  test("broker layers import only downwards: handlers → act → observe → call context → settle → core → request classification", () => {
    const upward: string[] = [];
    for (const file of sourceFiles(join(SRC, "broker"))) {
      const from = brokerLayer(file);
      for (const target of allLocalImports(file)) {
        const to = brokerLayer(target);
        if (from !== undefined && to !== undefined && to < from) {
          upward.push(
            `${relative(SRC, file)} (${BROKER_LAYERS[from]?.[0]}) → ${relative(SRC, target)} (${BROKER_LAYERS[to]?.[0]})`,
          );
        }
      }
    }
    expect(upward).toEqual([]);
  });

  test("commands see the broker through BrokerState; only the entry point knows the Broker class and the handler table", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(join(SRC, "broker"))) {
      if (brokerLayer(file) === 0) continue;
      for (const target of allLocalImports(file)) {
        const rel = relative(SRC, target);
        if (rel === "broker/broker.ts" || rel === "broker/handlers/index.ts")
          offenders.push(`${relative(SRC, file)} → ${rel}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  test("no browser automation library and no network client of our own in src/", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith(".ts") && !p.endsWith(".test.ts")) {
          const text = readFileSync(p, "utf8");
          if (/from\s+["'](playwright|puppeteer)[^"']*["']/.test(text)) offenders.push(relative(SRC, p));
        }
      }
    };
    walk(SRC);
    expect(offenders).toEqual([]);
  });
});
