/**
 * `bun bench/heap.ts <cli|janitor|broker>`: the JS heap a role's modules hold once loaded (from
 * source, `bun:jsc` heapStats after a full GC), against a process that loads none. Shows what
 * loading a module costs in heap, apart from the executable's pages the process touches.
 */
import { heapStats } from "bun:jsc";

const role = process.argv[2] ?? "none";
const src = new URL("../src/", import.meta.url).pathname;
if (role === "broker") {
  await import(`${src}broker/main.ts`);
  await import(`${src}broker/handlers/index.ts`);
} else if (role === "janitor") await import(`${src}janitor/main.ts`);
else if (role === "cli") await import(`${src}cli/main.ts`);
Bun.gc(true);
const s = heapStats();
const top = Object.entries(s.objectTypeCounts)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 6)
  .map(([k, n]) => `${k} ${n}`);
console.log(`${role}: JS heap ${(s.heapSize / 2 ** 20).toFixed(2)} MB, ${s.objectCount} objects (${top.join(", ")})`);
