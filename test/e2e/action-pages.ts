/** Counts Enter keydowns across documents of this origin, so a test can prove one was never sent. */
const COUNT_ENTERS = `<script>document.addEventListener("keydown", (e) => { if (e.key === "Enter") sessionStorage.setItem("enters", String(Number(sessionStorage.getItem("enters") || 0) + 1)); }, true);</script>`;
const ROWS = (n: number, what: string) => Array.from({ length: n }, (_, i) => `<p>${what} ${i}</p>`).join("");

/** Pages for test/e2e/actions.test.ts; `b` is the second origin (for out-of-process frames). */
export function actionPages(b: () => string): Record<string, string | ((url: URL) => string)> {
  return {
    // The inner page comes from the second origin, so it runs out of process with its own session.
    "/outer": () =>
      `<!doctype html><title>Outer</title><iframe style="width:500px;height:200px" src="${b()}/inner"></iframe>`,
    "/inner": `<!doctype html><title>Inner</title><input aria-label="Inner field"><select aria-label="Inner select"><option>A</option><option>B</option></select>`,
    "/form": `<!doctype html><title>Form</title>
      <input id=name aria-label="Name" value="old"><input id=pw type=password aria-label="Password">
      <input id=digits aria-label="Digits"><div contenteditable=true aria-label="Editor">x</div><button id=plain>Plain</button>
      <script>
        // A controlled input in the React style: state accepts digits only and the value is put back.
        let state = ""; const d = document.getElementById("digits");
        d.addEventListener("input", () => { state = d.value.replace(/[^0-9]/g, ""); d.value = state; });
      </script>`,
    // Fields that log, in order, the page's own beforeinput (with the selection it sees then) and select events, on the
    // page (a page that shows its reaction is not waited on for suggestions).
    "/replace": `<!doctype html><title>Replace</title><input id=f aria-label="Title" value="old title">
      <textarea id=t aria-label="Notes">old notes</textarea><div id=e contenteditable=true aria-label="Rich">rich text</div><p id=log></p>
      <x-field></x-field>
      <script>
        customElements.define("x-field", class extends HTMLElement {
          connectedCallback() { this.attachShadow({ mode: "open" }).innerHTML = '<input aria-label="Shadowed" value="old shadow">'; }
        });
        const note = (s) => (log.textContent += s + "|");
        for (const el of [f, t]) {
          el.addEventListener("beforeinput", () => note(el.id + " beforeinput " + el.selectionStart + ":" + el.selectionEnd));
          el.addEventListener("select", () => note(el.id + " select"));
        }
      </script>`,
    "/nav-on-type": `<!doctype html><title>Nav</title>${COUNT_ENTERS}<form action="/landed"><input aria-label="Go" oninput="if (this.value === 'go') location.href = '/landed'"></form>`,
    "/nav-on-focus": `<!doctype html><title>Focus nav</title><input aria-label="Trap" onfocus="location.href = '/landed'">`,
    "/landed": `<!doctype html><title>Landed</title>${COUNT_ENTERS}<p>landed</p>`,
    "/submit": `<!doctype html><title>Search</title><form action="/landed"><input name=q aria-label="Query"></form>`,
    "/otp": `<!doctype html><title>OTP</title><input id=a aria-label="First" maxlength=3><input id=b aria-label="Second" maxlength=3>
      <script>document.getElementById("a").addEventListener("input", (e) => { if (e.target.value.length >= 3) document.getElementById("b").focus(); });</script>`,
    "/canvas": `<!doctype html><title>Canvas</title><div id=ed tabindex=0 role=textbox aria-label="Canvas editor" style="width:200px;height:50px"></div><pre id=log></pre>
      <script>const ed = document.getElementById("ed"); ed.addEventListener("keydown", (e) => { if (e.key.length === 1) document.getElementById("log").textContent += e.key; e.preventDefault(); });</script>`,
    "/keys": `<!doctype html><title>Keys</title><input id=k aria-label="Keys" value="hello"><p id=out></p>
      <script>document.addEventListener("keydown", (e) => { document.getElementById("out").textContent = [e.ctrlKey ? "ctrl" : "", e.key, e.code].join(" "); });</script>`,
    "/long": `<!doctype html><title>Long</title><button>Top</button>${ROWS(150, "Paragraph")}<p>The hidden treasure</p>${ROWS(60, "Tail")}
      <div id=pane role=region aria-label="Pane" tabindex=0 style="height:100px;overflow:auto">${ROWS(40, "Row")}</div>`,
    "/select": `<!doctype html><title>Select</title>
      <label>Country <select id=c onchange="document.getElementById('picked').textContent = this.value"><option value="">Choose</option><option value=ca>Canada</option><option value=fr disabled>France</option><option value=jp>Japan</option></select></label>
      <p id=picked></p>
      <button id=combo role=combobox aria-haspopup=listbox aria-expanded=false aria-controls=lb>Fruit</button>
      <ul id=lb role=listbox hidden><li role=option aria-selected=false>Apple</li><li role=option aria-selected=false>Banana</li><li role=option aria-selected=false aria-disabled=true>Cherry</li></ul>
      <script>
        const combo = document.getElementById("combo"), lb = document.getElementById("lb");
        combo.onclick = () => { lb.hidden = !lb.hidden; combo.setAttribute("aria-expanded", String(!lb.hidden)); };
        lb.onclick = (e) => { const o = e.target.closest("[role=option]"); if (!o || o.getAttribute("aria-disabled") === "true") return;
          for (const x of lb.children) x.setAttribute("aria-selected", String(x === o)); combo.textContent = o.textContent; lb.hidden = true; combo.setAttribute("aria-expanded", "false"); };
      </script>`,
    "/upload": `<!doctype html><title>Upload</title><label>Resume <input type=file id=f></label><p id=got></p>
      <script>document.getElementById("f").onchange = (e) => { document.getElementById("got").textContent = e.target.files[0].name + ":" + e.target.files[0].size; };</script>`,
    "/pointer": `<!doctype html><title>Pointer</title>
      <button id=tip onmouseenter="document.getElementById('t').hidden = false">Hover me</button><div id=t role=tooltip hidden>Tip text</div>
      <div id=src draggable=true role=button aria-label="Drag source" style="width:60px;height:30px;background:#ccc">drag</div>
      <div id=dst role=button aria-label="Drop zone" style="width:120px;height:60px;border:1px solid">drop here</div>
      <div id=knob role=slider aria-label="Knob" aria-valuenow=0 style="position:relative;width:30px;height:30px;background:#999"></div>
      <script>
        const dst = document.getElementById("dst");
        document.getElementById("src").ondragstart = (e) => e.dataTransfer.setData("text/plain", "payload");
        dst.ondragover = (e) => e.preventDefault();
        dst.ondrop = (e) => { e.preventDefault(); dst.textContent = "dropped " + e.dataTransfer.getData("text/plain"); };
        // A pointer-driven slider: mousedown, mousemove with the button held, mouseup.
        const knob = document.getElementById("knob"); let down = null;
        knob.onmousedown = (e) => { down = e.clientX; };
        addEventListener("mousemove", (e) => { if (down !== null && e.buttons === 1) knob.setAttribute("aria-valuenow", String(Math.round(e.clientX - down))); });
        addEventListener("mouseup", () => { down = null; });
      </script>`,
    // A pointer drag between ends a viewport apart: "Near" comes into view once "Card" is centred,
    // "Far" never shares the viewport with it. The drop names the element under the release.
    "/far-drag": `<!doctype html><title>Far drag</title>
      <style>body{margin:0;height:700vh}div{position:absolute;left:20px;width:160px;height:30px;background:#ddd}</style>
      <div id=card role=button aria-label="Card" style="top:90vh">Card</div>
      <div id=near role=button aria-label="Near" style="top:130vh">Near</div>
      <div id=far role=button aria-label="Far" style="top:600vh">Far</div>
      <p id=out role=status style="position:fixed;top:0;right:0"></p>
      <script>
        let held = false;
        card.addEventListener("mousedown", () => { held = true; });
        addEventListener("mouseup", (e) => { if (held) out.textContent = "dropped on " + document.elementFromPoint(e.clientX, e.clientY).id; held = false; });
      </script>`,
  };
}
