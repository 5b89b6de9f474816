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
  return [...text.matchAll(/^import\s+[^;]*?from\s+["']([^"']+)["']/gm)].filter((m) => MACRO.test(text.slice((m.index ?? 0) + m[0].length))).map((m) => m[1] ?? "");
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

/**
 * The broker's layers, top to bottom (docs/architecture.md). A file may import its own layer
 * or any layer below it, never one above. The first matching rule names a file's layer.
 */
const BROKER_LAYERS: [layer: string, pattern: RegExp][] = [
  ["entry", /^broker\/(main|server|broker)\.ts$/],
  ["handlers", /^broker\/handlers\//],
  ["act", /^broker\/act\//],
  ["observe", /^broker\/(observe|capture|inspect)\//],
  ["context", /^broker\/(context\/|commands\/(runtime|watchdogs)\.ts$)/],
  ["settle", /^broker\/settle\/(?!requests\/)/],
  ["core", /^broker\/(?!settle\/requests\/)/],
  ["requests", /^broker\/settle\/requests\//],
];

function brokerLayer(file: string): number | undefined {
  const rel = relative(SRC, file);
  const i = BROKER_LAYERS.findIndex(([, re]) => re.test(rel));
  return i < 0 ? undefined : i;
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
    const files = reachable(join(SRC, "cli/main.ts"), (f) => [...staticImports(f), ...dynamicImports(f), ...macroImports(f)]);
    const bad = [...files].map((f) => relative(SRC, f)).filter((f) => /^(cdp|broker|janitor|page)\//.test(f));
    expect(bad).toEqual([]);
    expect([...files].map((f) => relative(SRC, f))).toContain("protocol/cli-spec.ts");
    expect(files.size).toBeGreaterThan(5);
  });

  test("the CLI's start-up loads no Node built-in module (each costs every call 0.5-1.5 ms); they load where a rare path needs them", () => {
    const files = reachable(join(SRC, "main.ts"), staticImports);
    const builtins = [...files].flatMap((f) => staticImports(f).filter((s) => s.startsWith("node:") || !s.startsWith(".")).map((s) => `${relative(SRC, f)} → ${s}`));
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

  test("broker layers import only downwards: handlers → act → observe → call context → settle → core → request classification", () => {
    const upward: string[] = [];
    for (const file of sourceFiles(join(SRC, "broker"))) {
      const from = brokerLayer(file);
      for (const target of allLocalImports(file)) {
        const to = brokerLayer(target);
        if (from !== undefined && to !== undefined && to < from) {
          upward.push(`${relative(SRC, file)} (${BROKER_LAYERS[from]?.[0]}) → ${relative(SRC, target)} (${BROKER_LAYERS[to]?.[0]})`);
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
        if (rel === "broker/broker.ts" || rel === "broker/handlers/index.ts") offenders.push(`${relative(SRC, file)} → ${rel}`);
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
