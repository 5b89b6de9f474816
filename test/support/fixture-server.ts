/**
 * Local pages for tests on two origins (two ports), so cross-origin cases are real.
 * Pages are registered by path; `/echo?html=` serves any markup.
 */
export interface Fixture {
  a: string;
  b: string;
  stop(): void;
}

type Page = string | ((url: URL, req: Request) => Response | string | Promise<Response>);

export const PAGES: Record<string, Page> = {
  "/": "<!doctype html><title>Home</title><h1>Home</h1><a href='/second'>Second</a>",
  "/second": "<!doctype html><title>Second</title><p>Second page</p>",
  "/third": "<!doctype html><title>Third</title><p>Third page</p>",
  "/popup":
    "<!doctype html><title>Opener</title><button id=b onclick=\"window.open('/second','_blank')\">Open popup</button>",
  "/slow": () =>
    new Promise<Response>((r) => setTimeout(() => r(html("<title>Slow</title>slow")), 1500)) as unknown as Response,
  "/echo": (url) => url.searchParams.get("html") ?? "",
  ...NET_PAGES(),
};

/** Bytes of the large download: big enough to stream in many chunks. */
export const LARGE_DOWNLOAD_BYTES = 3 * 1024 * 1024;
export const AUTH_USER = "alice";
export const AUTH_PASSWORD = "s3cret-pass";

/**
 * Network fixtures: downloads (named, large, failing), an HTTP Basic-auth page, a JSON API a
 * page fetches (and that echoes the headers it received), and cookies set by the server.
 */
function NET_PAGES(): Record<string, Page> {
  return {
    "/files": `<!doctype html><title>Files</title>
<a id=csv href="/download/report.csv">Report</a>
<a id=big href="/download/big.bin">Big file</a>
<a id=broken href="/download/broken">Broken file</a>
<iframe src="/second" style="width:300px;height:80px"></iframe>`,
    "/download/report.csv": () =>
      new Response("id,name\n1,Ada\n", {
        headers: { "content-type": "text/csv", "content-disposition": 'attachment; filename="report.csv"' },
      }),
    "/download/big.bin": () => {
      const chunk = new Uint8Array(64 * 1024).fill(7);
      let sent = 0;
      const body = new ReadableStream({
        async pull(c) {
          if (sent >= LARGE_DOWNLOAD_BYTES) return c.close();
          await Bun.sleep(5);
          c.enqueue(chunk);
          sent += chunk.length;
        },
      });
      return new Response(body, {
        headers: {
          "content-type": "application/octet-stream",
          "content-disposition": 'attachment; filename="big.bin"',
          "content-length": String(LARGE_DOWNLOAD_BYTES),
        },
      });
    },
    "/download/broken": () => {
      // Promises more bytes than it sends, then drops the connection: Chrome fails the download.
      let step = 0;
      const body = new ReadableStream({
        async pull(c) {
          if (step++ === 0) {
            c.enqueue(new Uint8Array(1024));
            return;
          }
          await Bun.sleep(50);
          // Bun logs this error; it is the point: the connection drops mid-file.
          c.error(new Error("connection dropped on purpose"));
        },
      });
      return new Response(body, {
        headers: {
          "content-type": "application/octet-stream",
          "content-disposition": 'attachment; filename="broken.bin"',
          "content-length": "1000000",
        },
      });
    },
    "/basic": (_url, req) => {
      const expected = `Basic ${btoa(`${AUTH_USER}:${AUTH_PASSWORD}`)}`;
      if (req.headers.get("authorization") === expected)
        return html("<!doctype html><title>Members</title><h1>Welcome, member</h1>");
      return new Response("<!doctype html><title>Unauthorized</title>401", {
        status: 401,
        headers: { "content-type": "text/html", "www-authenticate": 'Basic realm="fixture"' },
      });
    },
    "/app": `<!doctype html><title>App</title><p id=out>loading</p><button id=load onclick="load()">Load</button>
<script>
var inflight = 0;
async function load() {
  inflight++;
  try {
    const r = await fetch('/api/user?from=app', { headers: { 'X-From-Page': 'app' } });
    const j = await r.json();
    document.getElementById('out').textContent = r.status + ':' + j.name + ':' + (j.seen || '');
  } catch (e) { document.getElementById('out').textContent = 'failed:' + e.message; }
  finally { inflight--; }
}
load();
</script>`,
    "/api/user": (_url, req) =>
      Response.json(
        { name: "Grace", seen: req.headers.get("x-test-header") ?? "" },
        { headers: { "x-api": "fixture" } },
      ),
    "/cookies": () =>
      new Response("<!doctype html><title>Cookies</title>set", {
        headers: [
          ["content-type", "text/html"],
          ["set-cookie", "session=abc123; HttpOnly; SameSite=Strict; Path=/"],
          ["set-cookie", "theme=dark; SameSite=Lax; Path=/; Max-Age=3600"],
        ],
      }),
  };
}

function html(body: string): Response {
  return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
}

export function startFixtureServer(pages: Record<string, Page> = PAGES): Fixture {
  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const page = pages[url.pathname];
    if (page === undefined) return new Response("not found", { status: 404 });
    const out = typeof page === "function" ? await page(url, req) : page;
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
