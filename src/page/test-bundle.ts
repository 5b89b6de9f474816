/** For unit tests: the page library exactly as the browser gets it, evaluated from the bundled text. */
import { PAGE_LIBRARY } from "./bundle.ts";

type Script = (...args: never[]) => unknown;

let library: Record<string, Script> | undefined;

/** The bundled function `name` (an export name of entry.ts), typed as the test uses it. */
export function bundled<T>(name: string): T {
  library ??= new Function(`return ${PAGE_LIBRARY};`)() as Record<string, Script>;
  const fn = library[name];
  if (typeof fn !== "function") throw new Error(`the page bundle has no ${name}`);
  return fn as T;
}
