/**
 * Local pages for tests on two origins (two ports), so cross-origin cases are real.
 * Pages are registered by path; `/echo?html=` serves any markup.
 */
export interface Fixture {
  a: string;
  b: string;
  stop(): void;
}

type Page = string | ((url: URL) => Response | string);

export const PAGES: Record<string, Page> = {
  "/": "<!doctype html><title>Home</title><h1>Home</h1><a href='/second'>Second</a>",
  "/second": "<!doctype html><title>Second</title><p>Second page</p>",
  "/third": "<!doctype html><title>Third</title><p>Third page</p>",
  "/popup": "<!doctype html><title>Opener</title><button id=b onclick=\"window.open('/second','_blank')\">Open popup</button>",
  "/slow": () => new Promise<Response>((r) => setTimeout(() => r(html("<title>Slow</title>slow")), 1500)) as unknown as Response,
  "/echo": (url) => url.searchParams.get("html") ?? "",
};

function html(body: string): Response {
  return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
}

export function startFixtureServer(pages: Record<string, Page> = PAGES): Fixture {
  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const page = pages[url.pathname];
    if (page === undefined) return new Response("not found", { status: 404 });
    const out = typeof page === "function" ? await page(url) : page;
    return typeof out === "string" ? html(out) : out;
  };
  const a = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
  const b = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
  return {
    a: `http://127.0.0.1:${a.port}`,
    b: `http://localhost:${b.port}`,
    stop() {
      a.stop(true);
      b.stop(true);
    },
  };
}
