import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = join(import.meta.dir, "../src");

function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  // Static imports only: `import x from`, `export … from`, bare `import "…"`. Type-only imports are erased.
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+["']([^"']+)["']/gm)) if (m[1]) out.push(m[1]);
  for (const m of text.matchAll(/^import\s+["']([^"']+)["']/gm)) if (m[1]) out.push(m[1]);
  return out;
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
    const files = reachable(join(SRC, "cli/main.ts"), (f) => [...staticImports(f), ...dynamicImports(f)]);
    const bad = [...files].map((f) => relative(SRC, f)).filter((f) => /^(cdp|broker|janitor|page)\//.test(f));
    expect(bad).toEqual([]);
    expect(files.size).toBeGreaterThan(5);
  });

  test("the entry point loads broker and janitor only dynamically", () => {
    const statics = staticImports(join(SRC, "main.ts"));
    expect(statics).toEqual(["./cli/main.ts"]);
    expect(dynamicImports(join(SRC, "main.ts")).sort()).toEqual(["./broker/main.ts", "./janitor/main.ts"]);
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
