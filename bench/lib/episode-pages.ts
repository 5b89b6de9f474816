/**
 * MiniWoB-style episodes (bench/episodes.ts): small task pages written for this bench, each with
 * an instruction line, built from a seed, with the ordinary widget code such pages use (jQuery
 * delegated handlers, jQuery UI accordion, tabs, autocomplete, datepicker, sortable). A page
 * reports its reward to the bench's server (`/reward`), so success is judged by the page, not by
 * either tool's output. The goal is handed to the scripted agent as steps by element name.
 */

import { rng } from "../../test/support/rng.ts";

/** One step of the scripted agent: which element, by its visible name, and what to do. */
export type Step =
  | { op: "click"; name: string }
  | { op: "type"; name: string; text: string }
  | { op: "select"; name: string; option: string }
  | { op: "drag"; name: string; to: string };

export interface Episode {
  task: string;
  html: string;
  /** The instruction shown on the page: the agent's first look must show it. */
  instruction: string;
  goal: Step[];
}

const WORDS = [
  "amber",
  "birch",
  "cedar",
  "delta",
  "ember",
  "fjord",
  "grove",
  "harbor",
  "iris",
  "juniper",
  "kelp",
  "lumen",
  "maple",
  "nectar",
  "onyx",
  "pebble",
  "quartz",
  "raven",
  "sable",
  "tundra",
];
const FRUITS = ["Apricot", "Banana", "Cherry", "Damson", "Elderberry", "Fig", "Guava", "Kiwi", "Lemon", "Mango"];
const NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"];

function pick<T>(r: () => number, xs: readonly T[], n: number): T[] {
  const pool = [...xs];
  const out: T[] = [];
  while (out.length < n && pool.length > 0) out.push(pool.splice(Math.floor(r() * pool.length), 1)[0] as T);
  return out;
}

const JQ = `<link rel=stylesheet href="/lib/jquery-ui.css"><script src="/lib/jquery.js"></script><script src="/lib/jquery-ui.js"></script>`;

function page(title: string, instruction: string, body: string, script: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${JQ}
<style>body{font:14px sans-serif;margin:12px;width:400px}#query{background:#ff0;padding:4px;margin-bottom:8px}.lnk{color:#00e;text-decoration:underline}.lnk:hover{cursor:pointer}</style></head>
<body><div id=query>${instruction}</div><div id=area>${body}</div>
<script>
var __sent = false;
function reward(ok) { if (__sent) return; __sent = true; fetch("/reward?ok=" + (ok ? 1 : 0) + "&ep=" + encodeURIComponent(location.search.slice(1)), { keepalive: true }); }
${script}
</script></body></html>`;
}

type Builder = (r: () => number) => Omit<Episode, "task">;

const TASKS: Record<string, Builder> = {
  "click-button": (r) => {
    const words = pick(r, WORDS, 6);
    const target = words[Math.floor(r() * words.length)] as string;
    const instruction = `Click on the "${target}" button.`;
    const body = words.map((w) => `<button type=button>${w}</button>`).join(" ");
    const script = `$("button").on("click", function () { reward(this.textContent === ${JSON.stringify(target)}); });`;
    return {
      html: page("Click a button", instruction, body, script),
      instruction,
      goal: [{ op: "click", name: target }],
    };
  },
  "enter-text": (r) => {
    const target = pick(r, WORDS, 1)[0] as string;
    const instruction = `Enter "${target}" into the Answer field and press Submit.`;
    const body = `<p><label>Answer <input id=tt type=text></label></p><button id=sub type=button>Submit</button>`;
    const script = `$("#sub").on("click", function () { reward($("#tt").val() === ${JSON.stringify(target)}); });`;
    return {
      html: page("Enter text", instruction, body, script),
      instruction,
      goal: [
        { op: "type", name: "Answer", text: target },
        { op: "click", name: "Submit" },
      ],
    };
  },
  "click-checkboxes": (r) => {
    const words = pick(r, WORDS, 5);
    const targets = pick(r, words, 1 + Math.floor(r() * 3));
    const instruction = `Select ${targets.join(", ")} and press Submit.`;
    const body = `${words.map((w) => `<label><input type=checkbox value=${w}> ${w}</label><br>`).join("")}<button id=sub type=button>Submit</button>`;
    const script = `$("#sub").on("click", function () { var on = $("input:checked").map(function () { return this.value; }).get().sort().join(","); reward(on === ${JSON.stringify([...targets].sort().join(","))}); });`;
    return {
      html: page("Checkboxes", instruction, body, script),
      instruction,
      goal: [...targets.map((name) => ({ op: "click" as const, name })), { op: "click", name: "Submit" }],
    };
  },
  "choose-list": (r) => {
    const words = pick(r, WORDS, 8);
    const target = words[Math.floor(r() * words.length)] as string;
    const instruction = `Select ${target} from the list and press Submit.`;
    const body = `<p><label>Item <select id=sel>${words.map((w) => `<option>${w}</option>`).join("")}</select></label></p><button id=sub type=button>Submit</button>`;
    const script = `$("#sub").on("click", function () { reward($("#sel").val() === ${JSON.stringify(target)}); });`;
    return {
      html: page("Choose from a list", instruction, body, script),
      instruction,
      goal: [
        { op: "select", name: "Item", option: target },
        { op: "click", name: "Submit" },
      ],
    };
  },
  "delegated-link": (r) => {
    const words = pick(r, WORDS, 6);
    const target = words[Math.floor(r() * words.length)] as string;
    const instruction = `Click on the link "${target}".`;
    const body = `<p>${words.map((w) => `<span class=lnk>${w}</span>`).join(" · ")}</p>`;
    const script = `$("#area").on("click", ".lnk", function () { reward(this.textContent === ${JSON.stringify(target)}); });`;
    return {
      html: page("Click a link", instruction, body, script),
      instruction,
      goal: [{ op: "click", name: target }],
    };
  },
  accordion: (r) => {
    const words = pick(r, WORDS, 6);
    const k = 1 + Math.floor(r() * 2);
    const target = words[k * 2 + Math.floor(r() * 2)] as string;
    const instruction = `Expand Section ${k + 1} and click on the link "${target}".`;
    const body = `<div id=acc>${[0, 1, 2]
      .map(
        (i) =>
          `<h3>Section ${i + 1}</h3><div><p>${words
            .slice(i * 2, i * 2 + 2)
            .map((w) => `<span class=lnk>${w}</span>`)
            .join(" ")}</p></div>`,
      )
      .join("")}</div>`;
    const script = `$("#acc").accordion(); $("#acc").on("click", ".lnk", function () { reward(this.textContent === ${JSON.stringify(target)}); });`;
    return {
      html: page("Accordion", instruction, body, script),
      instruction,
      goal: [
        { op: "click", name: `Section ${k + 1}` },
        { op: "click", name: target },
      ],
    };
  },
  tabs: (r) => {
    const words = pick(r, WORDS, 3);
    const k = 1 + Math.floor(r() * 2);
    const instruction = `Switch to Tab ${k + 1} and click on the "${words[k]}" button.`;
    const body = `<div id=tabs><ul>${[1, 2, 3].map((i) => `<li><a href="#t${i}">Tab ${i}</a></li>`).join("")}</ul>${words.map((w, i) => `<div id=t${i + 1}><button type=button>${w}</button></div>`).join("")}</div>`;
    const script = `$("#tabs").tabs(); $("#tabs").on("click", "button", function () { reward(this.textContent === ${JSON.stringify(words[k])}); });`;
    return {
      html: page("Tabs", instruction, body, script),
      instruction,
      goal: [
        { op: "click", name: `Tab ${k + 1}` },
        { op: "click", name: words[k] as string },
      ],
    };
  },
  autocomplete: (r) => {
    const target = pick(r, FRUITS, 1)[0] as string;
    const prefix = target.slice(0, 2);
    const instruction = `Enter an item that starts with "${prefix}" and press Submit.`;
    const body = `<p><label for=fruit>Fruit</label> <input id=fruit></p><button id=sub type=button>Submit</button>`;
    const script = `$("#fruit").autocomplete({ source: ${JSON.stringify(FRUITS)} }); $("#sub").on("click", function () { reward($("#fruit").val() === ${JSON.stringify(target)}); });`;
    return {
      html: page("Autocomplete", instruction, body, script),
      instruction,
      goal: [
        { op: "type", name: "Fruit", text: prefix },
        { op: "click", name: target },
        { op: "click", name: "Submit" },
      ],
    };
  },
  datepicker: (r) => {
    const month = Math.floor(r() * 12);
    const day = 1 + Math.floor(r() * 28);
    const prev = (month + 11) % 12;
    const year = month === 0 ? 2025 : 2026;
    const date = `${String(prev + 1).padStart(2, "0")}/${String(day).padStart(2, "0")}/${year}`;
    const instruction = `Select ${date} as the date and press Submit.`;
    const body = `<p><label for=dp>Date</label> <input id=dp readonly></p><button id=sub type=button>Submit</button>`;
    const script = `$("#dp").datepicker({ defaultDate: new Date(2026, ${month}, 15) }); $("#sub").on("click", function () { reward($("#dp").val() === ${JSON.stringify(date)}); });`;
    return {
      html: page(
        `Date in ${new Date(2026, prev, 1).toLocaleString("en", { month: "long" })}`,
        instruction,
        body,
        script,
      ),
      instruction,
      goal: [
        { op: "click", name: "Date" },
        { op: "click", name: "Prev" },
        { op: "click", name: String(day) },
        { op: "click", name: "Submit" },
      ],
    };
  },
  sortable: (r) => {
    const names = pick(r, NAMES, 4);
    const target = names[Math.floor(r() * 3)] as string;
    const instruction = `Move ${target} to the end of the list and press Submit.`;
    const body = `<ul id=list style="list-style:none;padding:0;width:200px">${names.map((n) => `<li class=ui-state-default style="height:28px;line-height:28px;margin:2px 0;padding:0 6px">${n}</li>`).join("")}</ul><button id=sub type=button>Submit</button>`;
    const script = `$("#list").sortable(); $("#sub").on("click", function () { reward($("#list li").last().text() === ${JSON.stringify(target)}); });`;
    return {
      html: page("Sort a list", instruction, body, script),
      instruction,
      goal: [
        { op: "drag", name: target, to: names[3] as string },
        { op: "click", name: "Submit" },
      ],
    };
  },
};

export const TASK_NAMES = Object.keys(TASKS);

export function episode(task: string, seed: number): Episode {
  const build = TASKS[task];
  if (!build) throw new Error(`unknown task ${task}`);
  return { task, ...build(rng(seed * 7919 + task.length)) };
}
