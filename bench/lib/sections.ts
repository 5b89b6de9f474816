/**
 * docs/benchmarks.md's sections written by scripts other than `npm run bench` (which keeps them
 * when it rewrites the rest): each starts with its marker and runs to the next marker or the end.
 */
export const BATCH_SECTION = "<!-- bench/batch.ts -->";
export const PHASES_SECTION = "<!-- bench/phases.ts -->";
export const MEMORY_SECTION = "<!-- bench/memory.ts -->";
/** Written by hand: what the measurements say (kept like the generated sections). */
export const FINDINGS_SECTION = "<!-- findings -->";
const MARKERS = [FINDINGS_SECTION, BATCH_SECTION, PHASES_SECTION, MEMORY_SECTION];

/** Where the first kept section starts (the end when there is none). */
export function keptFrom(doc: string): number {
  const at = MARKERS.map((m) => doc.indexOf(m)).filter((i) => i >= 0);
  return at.length ? Math.min(...at) : doc.length;
}

/** The doc with `marker`'s section replaced by `text` (which starts with the marker), or appended. */
export function replaceSection(doc: string, marker: string, text: string): string {
  const body = `${text.trimEnd()}\n`;
  const start = doc.indexOf(marker);
  if (start < 0) return `${doc.trimEnd()}\n\n${body}`;
  const next = MARKERS.map((m) => doc.indexOf(m, start + marker.length)).filter((i) => i > start);
  const end = next.length ? Math.min(...next) : doc.length;
  return `${doc.slice(0, start)}${body}${end < doc.length ? `\n${doc.slice(end)}` : ""}`;
}
