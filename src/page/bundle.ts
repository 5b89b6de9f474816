/**
 * The page code as one self-contained script: `entry.ts` and everything it imports, bundled
 * and minified at build time (see `bundle-macro.ts`). `PAGE_LIBRARY` is an expression whose
 * value is the object of the entry's exports; `runtime.ts` installs it once per isolated world.
 */
import { bundlePage } from "./bundle-macro.ts" with { type: "macro" };

export const PAGE_LIBRARY: string = bundlePage();
