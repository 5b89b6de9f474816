/** Local pages the suite drives: ordinary task pages, slow pages and hostile ones. */
import { PAGES, startFixtureServer, type Fixture } from "../../support/fixture-server.ts";
import { HOSTILE_PAGES } from "./hostile-pages.ts";

/** Requests seen per path, so a harness can wait for "the navigation has reached the server". */
export const hits = new Map<string, number>();

const delayed = (ms: number, body: string) => (url: URL) => {
  hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
  return new Promise<Response>((r) =>
    setTimeout(() => r(new Response(body, { headers: { "content-type": "text/html" } })), ms),
  ) as unknown as Response;
};

export const SUITE_PAGES = {
  ...PAGES,
  "/form":
    "<!doctype html><title>Form</title><form action='/slow-result'><label>Query <input name=q></label><button>Go</button></form>" +
    "<button id=count aria-label=Count onclick=\"this.textContent = 'Clicked ' + (++window.n || (window.n = 1))\">Count</button><a href='/slow-result'>Slow link</a>" +
    "<select><option>One</option><option>Two</option></select><p id=out>Output</p>",
  "/slow-result": delayed(6000, "<!doctype html><title>Result</title><p>Result</p>"),
  "/file.csv": () =>
    new Response("a,b\n1,2\n", {
      headers: { "content-type": "text/csv", "content-disposition": "attachment; filename=file.csv" },
    }),
  "/download":
    "<!doctype html><title>Download</title><a href='/file.csv'>Get file</a><img src='/missing-1.png'><img src='/missing-2.png'><img src='/missing-3.png'>",
  "/dialog":
    "<!doctype html><title>Dialog</title><button onclick=\"confirm('Really?')\">Ask</button><input aria-label=Secret>",
  ...HOSTILE_PAGES,
};

export function startSite(): Fixture {
  return startFixtureServer(SUITE_PAGES);
}
