/**
 * A page built with the real React 19 (test/support/react-bundle.ts): controlled inputs, a checkbox React puts back, a select, a form
 * that adds list items, a debounced search, a portal dialog and a save with a late status, all
 * with React's one listener on the root and its handlers in props.
 */
import { REACT_BUNDLE } from "../support/react-bundle.ts";

const APP = `
const h = React.createElement;
const { useState, useEffect } = React;
const FRUITS = ["Apple", "Apricot", "Avocado", "Banana", "Blueberry", "Cherry"];
const COUNTRIES = { fr: "France", de: "Germany", jp: "Japan" };

function Greeting() {
  const [name, setName] = useState("");
  return h("section", null,
    h("label", { htmlFor: "name" }, "Your name"), " ",
    h("input", { id: "name", value: name, onChange: (e) => setName(e.target.value) }),
    h("p", { id: "hello" }, name ? "Hello, " + name + "!" : "Type your name"));
}
function Counter() {
  const [n, setN] = useState(0);
  return h("section", null,
    h("button", { onClick: () => setN(n + 1) }, "Add one"),
    // An icon button: the press lands on the svg, the handler is on the button (React's root listener).
    h("button", { "aria-label": "Reset", onClick: () => setN(0) },
      h("svg", { width: 16, height: 16, viewBox: "0 0 16 16" }, h("path", { d: "M2 2h12v12H2z" }))),
    h("p", null, "Count: " + n));
}
function Subscribe() {
  const [on, setOn] = useState(false);
  return h("p", null, h("label", null,
    h("input", { type: "checkbox", checked: on, onChange: (e) => setOn(e.target.checked) }),
    on ? " Subscribed" : " Not subscribed"));
}
function Locked() {
  // Controlled and never updated: React puts the box back after every click.
  return h("p", null, h("label", null, h("input", { type: "checkbox", checked: false, onChange: () => {} }), " Accept the terms"));
}
function Country() {
  const [c, setC] = useState("fr");
  return h("section", null,
    h("label", { htmlFor: "country" }, "Country"), " ",
    h("select", { id: "country", value: c, onChange: (e) => setC(e.target.value) },
      Object.entries(COUNTRIES).map(([v, t]) => h("option", { key: v, value: v }, t))),
    h("p", null, "Shipping to " + COUNTRIES[c]));
}
function Todos() {
  const [items, setItems] = useState(["Milk"]);
  const [text, setText] = useState("");
  const add = (e) => { e.preventDefault(); if (text.trim()) { setItems([...items, text.trim()]); setText(""); } };
  return h("form", { onSubmit: add },
    h("input", { "aria-label": "New task", value: text, onChange: (e) => setText(e.target.value) }),
    h("button", { type: "submit" }, "Add task"),
    h("ul", null, items.map((t, i) => h("li", { key: t + i }, t + " ",
      h("button", { type: "button", "aria-label": "Remove " + t, onClick: () => setItems(items.filter((_, j) => j !== i)) }, "x")))),
    h("p", null, items.length + (items.length === 1 ? " task" : " tasks")));
}
function Search() {
  const [q, setQ] = useState("");
  const [found, setFound] = useState(null);
  useEffect(() => {
    if (!q) { setFound(null); return; }
    const t = setTimeout(() => setFound(FRUITS.filter((f) => f.toLowerCase().startsWith(q.toLowerCase()))), 250);
    return () => clearTimeout(t);
  }, [q]);
  return h("section", null,
    // type=search says the field offers suggestions, so the typing reply waits for the debounced results.
    h("input", { type: "search", "aria-label": "Search fruit", value: q, onChange: (e) => setQ(e.target.value) }),
    h("ul", null, (found || []).map((f) => h("li", { key: f }, h("button", { type: "button", onClick: () => setQ(f) }, f)))),
    found && found.length === 0 ? h("p", null, "No fruit matches " + q) : null);
}
function Settings() {
  const [open, setOpen] = useState(false);
  return h("section", null,
    h("button", { onClick: () => setOpen(true) }, "Open settings"),
    open && ReactDOM.createPortal(
      h("div", { role: "dialog", "aria-label": "Settings" }, h("p", null, "Dark mode is off"),
        h("button", { onClick: () => setOpen(false) }, "Close settings")),
      document.body));
}
function Saver() {
  const [state, setState] = useState("Not saved");
  const save = () => fetch("/react/save", { method: "POST" }).then((r) => r.text()).then(setState);
  return h("section", null, h("button", { onClick: save }, "Save draft"), h("p", { role: "status" }, state));
}
createRoot(document.getElementById("root")).render(h(React.StrictMode, null,
  h(Greeting), h(Counter), h(Subscribe), h(Locked), h(Country), h(Todos), h(Search), h(Settings), h(Saver)));
`;

export const REACT_PAGES = {
  "/react/lib.js": () => new Response(REACT_BUNDLE, { headers: { "content-type": "text/javascript" } }),
  "/react/save": () => Bun.sleep(150).then(() => new Response("Saved at 10:42")),
  "/react": `<!doctype html><title>React</title><div id=root></div><script src="/react/lib.js"></script><script>${APP}</script>`,
};
