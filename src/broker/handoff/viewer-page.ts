/**
 * The viewer page: plain HTML and a little script, nothing fetched elsewhere (CSP: its own socket and data: frames). It
 * shows frames, forwards normalised pointer and key input, and offers "Hand back".
 */

const STYLE = `
body { margin: 0; font: 14px system-ui, sans-serif; background: #1e1e1e; color: #eee; display: flex; flex-direction: column; height: 100vh; }
header { display: flex; gap: 12px; align-items: center; padding: 8px 12px; background: #2d2d2d; }
#status { font-weight: 600; }
#msg { flex: 1; color: #ffd479; }
button { font: inherit; padding: 6px 14px; }
main { flex: 1; overflow: auto; display: flex; justify-content: center; align-items: flex-start; padding: 8px; }
#screen { max-width: 100%; display: block; outline: 2px solid #555; cursor: crosshair; }
#screen:focus { outline-color: #4a9eff; }
#screen.locked { cursor: not-allowed; opacity: .75; }
aside { padding: 6px 12px; background: #262626; font-size: 12px; max-height: 25vh; overflow: auto; }
aside ul { margin: 4px 0; padding-left: 18px; }
`;

const SCRIPT = `
(() => {
  const sid = document.body.dataset.session;
  const img = document.getElementById("screen");
  const status = document.getElementById("status");
  const msg = document.getElementById("msg");
  const back = document.getElementById("handback");
  const list = document.getElementById("tabs");
  let live = false;
  let ended = false;
  const ws = new WebSocket("ws://" + location.host + "/ws/" + sid);
  const send = (m) => { if (ws.readyState === 1 && live) ws.send(JSON.stringify(m)); };
  const at = (e) => {
    const r = img.getBoundingClientRect();
    return { x: Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)), y: Math.min(1, Math.max(0, (e.clientY - r.top) / r.height)) };
  };
  const mods = (e) => (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
  const setLive = (on, text) => {
    live = on && !ended;
    back.disabled = !live;
    img.classList.toggle("locked", !live);
    status.textContent = text;
  };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "frame") img.src = "data:image/jpeg;base64," + m.data;
    else if (m.type === "state") {
      if (m.control === "human") setLive(true, "You have control until " + new Date(m.until).toLocaleTimeString());
      else if (m.control === "draining") setLive(false, "Waiting for the agent's running commands to finish…");
      else setLive(false, "Watching: the agent has control; input is off");
      msg.textContent = m.message || "";
      list.replaceChildren(...m.tabs.map((t) => {
        const li = document.createElement("li");
        li.textContent = (t.viewed ? "▶ " : "") + (t.title || t.url) + " — " + (t.human ? "person until " + new Date(t.human).toLocaleTimeString() : t.agent ? "agent " + t.agent : "no agent");
        return li;
      }));
    } else if (m.type === "ended") {
      ended = true;
      setLive(false, m.reason === "handback" ? "Handed back. This viewer is closed." : "Control ended (" + m.reason + "). This viewer is closed.");
    } else if (m.type === "refused") msg.textContent = m.reason;
  };
  ws.onclose = () => { if (!ended) setLive(false, "Disconnected. Run 'bp view' for a new link."); ended = true; };
  // One move per animation frame at most: the latest position wins, so a fast pointer
  // cannot queue up a backlog of stale events behind the person's clicks.
  let moved;
  const flushMove = () => { if (moved) send(moved); moved = undefined; };
  img.addEventListener("mousemove", (e) => {
    const first = moved === undefined;
    moved = { type: "move", ...at(e), buttons: e.buttons & 7, mods: mods(e) };
    if (first) requestAnimationFrame(flushMove);
  });
  img.addEventListener("mousedown", (e) => { e.preventDefault(); img.focus(); flushMove(); send({ type: "mouse", action: "down", button: e.button, ...at(e), mods: mods(e), clicks: e.detail || 1 }); });
  img.addEventListener("mouseup", (e) => { e.preventDefault(); flushMove(); send({ type: "mouse", action: "up", button: e.button, ...at(e), mods: mods(e), clicks: e.detail || 1 }); });
  img.addEventListener("contextmenu", (e) => e.preventDefault());
  img.addEventListener("wheel", (e) => { e.preventDefault(); send({ type: "wheel", ...at(e), dx: e.deltaX, dy: e.deltaY }); }, { passive: false });
  const key = (action) => (e) => {
    if (document.activeElement !== img) return;
    e.preventDefault();
    send({ type: "key", action, key: e.key, code: e.code, keyCode: e.keyCode, mods: mods(e) });
  };
  document.addEventListener("keydown", key("down"));
  document.addEventListener("keyup", key("up"));
  img.addEventListener("paste", (e) => { e.preventDefault(); send({ type: "text", text: e.clipboardData.getData("text/plain") }); });
  back.addEventListener("click", () => { send({ type: "handback" }); back.disabled = true; });
})();
`;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function viewerHtml(session: string, nonce: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<title>Browser Pilot viewer</title><style nonce="${nonce}">${STYLE}</style></head>
<body data-session="${escapeHtml(session)}">
<header><span id="status">Connecting…</span><span id="msg"></span><button id="handback" disabled>Hand back</button></header>
<main><img id="screen" tabindex="0" alt="Live view of the tab (click to focus, then type)"></main>
<aside>Tabs of this browser and who controls them:<ul id="tabs"></ul></aside>
<script nonce="${nonce}">${SCRIPT}</script></body></html>`;
}

/** Security headers of every viewer response. */
export function viewerHeaders(origin: string, nonce: string | undefined): Record<string, string> {
  const csp = nonce
    ? `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src data:; connect-src ${origin.replace("http:", "ws:")}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
    : "default-src 'none'; frame-ancestors 'none'";
  return {
    "cache-control": "no-store",
    "content-security-policy": csp,
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cross-origin-resource-policy": "same-origin",
  };
}
