/**
 * The real React 19 and ReactDOM (the `react` and `react-dom` devDependencies) as one script
 * for fixture pages, bundled by Bun when this module loads: it sets `React`, `ReactDOM` and
 * `createRoot` on the page's window. Used by test/e2e/react-pages.ts and the bench's /react page.
 */
import { join } from "node:path";

const built = await Bun.build({
  entrypoints: [join(import.meta.dir, "react-lib.js")],
  minify: true,
  define: { "process.env.NODE_ENV": '"production"' },
});
if (!built.success || !built.outputs[0]) throw new Error(`React bundle: ${built.logs.join("\n")}`);

export const REACT_BUNDLE: string = await built.outputs[0].text();
