/**
 * Build-time half of the page bundle: a Bun macro (bundle.ts imports it `with { type: "macro" }`), so only its string
 * result reaches the program, in compiled builds and `bun test` alike. It bundles `entry.ts` into one minified script
 * and turns the exports into one expression, `(function(){…; return {name: fn, …}})()`. Bun.build cannot run inside a
 * macro, so it runs `bun build`.
 */
import { join } from "node:path";

/** The bundler's export clause at the end of an ESM bundle: `export{a as snapshot,b as read};`. */
const EXPORTS = /export\s*\{([^}]*)\}\s*;?\s*$/;

export function toExpression(esm: string): string {
  const m = EXPORTS.exec(esm);
  if (!m || m.index === undefined) throw new Error("page bundle: no export clause at its end");
  const body = esm.slice(0, m.index);
  if (/(^|[;\n}])\s*(import|export)\b/.test(body))
    throw new Error("page bundle: it must not import or export anything else");
  const fields = (m[1] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((s) => {
      const [local, name = local] = s.split(/\s+as\s+/);
      return `${JSON.stringify(name)}:${local ?? ""}`;
    });
  return `(function(){${body}return{${fields.join(",")}};})()`;
}

export function bundlePage(): string {
  const entry = join(import.meta.dir, "entry.ts");
  const proc = Bun.spawnSync([process.execPath, "build", entry, "--minify", "--format=esm", "--target=browser"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (proc.exitCode !== 0) throw new Error(`page bundle failed: ${proc.stderr.toString().slice(0, 2000)}`);
  return toExpression(proc.stdout.toString());
}
