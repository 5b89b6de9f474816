/**
 * Local fixture pages, served by the bench itself on 127.0.0.1 (no network beyond loopback).
 *
 *  /form   a small sign-up form: the click target "Add item" bumps a counter, the text field
 *          "Full name" echoes what was typed, so an observation after the action shows an effect.
 *  /table  a data table with TABLE_CONTROLS controls (checkbox, text field, select, link, button
 *          per row), the shape of an admin grid.
 *  /big    a long feed of BIG_NODES elements, mostly text, with a link and a button per card.
 *  /page   a tiny page for navigation timing (?n= makes every URL distinct).
 *  /widgets, /live  real-widget pages (widgets.ts).
 */
import { widgetRoutes } from "./widgets.ts";

export const TABLE_ROWS = 300;
export const TABLE_CONTROLS = TABLE_ROWS * 5;
const CARD_ELEMENTS = 25;
export const BIG_CARDS = 2000;
export const BIG_NODES = BIG_CARDS * CARD_ELEMENTS;
export const BIG_CONTROLS = BIG_CARDS * 2;

/** Names the scenarios act on. */
export const CLICK_TARGET = "Add item";
export const TYPE_TARGET = "Full name";

const head = (title: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
  `<style>body{font:14px sans-serif;margin:16px}td,th{padding:2px 6px}.card{margin:6px 0}</style></head><body>`;

function formPage(): string {
  return `${head("Sign up")}
<nav><a href="/page?n=home">Home</a> <a href="/page?n=help">Help</a> <a href="/page?n=contact">Contact</a></nav>
<h1>Create your account</h1>
<form onsubmit="event.preventDefault();document.getElementById('status').textContent='Submitted'">
  <p><label>Email <input type="email" name="email" placeholder="you@example.com"></label></p>
  <p><label>Password <input type="password" name="password"></label></p>
  <p><label>Full name <input type="text" name="fullname" id="fullname"></label></p>
  <p id="greet">Hello, stranger</p>
  <p><label>Country <select name="country"><option>USA</option><option>Germany</option><option>Japan</option></select></label></p>
  <p><label><input type="checkbox" name="agree"> I agree to the terms</label></p>
  <fieldset><legend>Plan</legend>
    <label><input type="radio" name="plan" value="free" checked> Free</label>
    <label><input type="radio" name="plan" value="pro"> Pro</label>
  </fieldset>
  <p><label>Comment <textarea name="comment"></textarea></label></p>
  <p><button type="button" id="add">Add item</button> Items: <output id="count">0</output></p>
  <p><button type="submit">Create account</button> <span id="status"></span></p>
</form>
<script>
  let n = 0;
  document.getElementById('add').addEventListener('click', () => {
    n++; document.getElementById('count').textContent = String(n);
  });
  document.getElementById('fullname').addEventListener('input', (e) => {
    document.getElementById('greet').textContent = 'Hello, ' + e.target.value;
  });
</script>
</body></html>`;
}

function tablePage(): string {
  const rows: string[] = [];
  for (let i = 1; i <= TABLE_ROWS; i++) {
    rows.push(
      `<tr><td><input type="checkbox" aria-label="Select order ${i}"></td><td>Order ${i}</td>` +
        `<td><input type="text" aria-label="Note for order ${i}" value=""></td>` +
        `<td><select aria-label="Status of order ${i}"><option>Open</option><option>Shipped</option><option>Closed</option></select></td>` +
        `<td><a href="/page?n=order-${i}">Details ${i}</a></td><td><button type="button">Delete ${i}</button></td></tr>`,
    );
  }
  return `${head("Orders")}<h1>Orders</h1><table><thead><tr><th>Pick</th><th>Order</th><th>Note</th><th>Status</th><th>Link</th><th>Action</th></tr></thead><tbody>${rows.join("")}</tbody></table></body></html>`;
}

/** One card is exactly CARD_ELEMENTS elements, two of them interactive. */
function card(i: number): string {
  const words = (k: number) => `<span>word ${i}.${k}</span>`;
  return (
    `<div class="card">` + // 1
    `<h3><a href="/page?n=post-${i}">Post ${i}</a></h3>` + // 2
    `<p>${words(1)}${words(2)}${words(3)}${words(4)}</p>` + // 5
    `<p>${words(5)}${words(6)}${words(7)}${words(8)}</p>` + // 5
    `<ul><li>tag a</li><li>tag b</li><li>tag c</li><li>tag d</li></ul>` + // 5
    `<div><em>by</em> <strong>author ${i}</strong> <small>${i} min ago</small></div>` + // 4
    `<footer><span>${i} likes</span><button type="button">Like post ${i}</button></footer>` + // 3
    `</div>`
  );
}

function bigPage(): string {
  const cards: string[] = [];
  for (let i = 1; i <= BIG_CARDS; i++) cards.push(card(i));
  return `${head("Feed")}<main>${cards.join("")}</main></body></html>`;
}

function smallPage(n: string): string {
  return `${head(`Page ${n}`)}<h1>Page ${n}</h1><p>A short page.</p><a href="/form">Form</a> <button type="button">OK</button></body></html>`;
}

export interface Fixtures {
  origin: string;
  url(path: string): string;
  stop(): void;
}

/** `extra`: a scenario's own pages, asked first (bench/episodes.ts); undefined passes the request on. */
export function startFixtures(extra?: (u: URL) => Response | undefined): Fixtures {
  const pages: Record<string, string> = { "/form": formPage(), "/table": tablePage(), "/big": bigPage() };
  const routes = widgetRoutes();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      const own = extra?.(u);
      if (own) return own;
      // An empty favicon keeps a 404 out of every page's console (playwright-cli reports it).
      if (u.pathname === "/favicon.ico") return new Response(null, { status: 204 });
      const route = routes[u.pathname];
      if (route)
        return new Response(route.body, {
          headers: {
            "content-type": route.type,
            "cache-control": u.pathname.startsWith("/lib/") ? "max-age=3600" : "no-store",
          },
        });
      const html = u.pathname === "/page" ? smallPage(u.searchParams.get("n") ?? "0") : pages[u.pathname];
      if (html === undefined) return new Response("not found", { status: 404 });
      return new Response(html, {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return { origin, url: (path) => origin + path, stop: () => void server.stop(true) };
}
