/*
 * Writes a valibot schema out as a plain TypeScript function that gives the schema's verdict
 * and output (undefined where it refuses the value), so code that must start fast (the CLI)
 * reads replies, the locator and plain arguments without loading valibot. The functions follow
 * valibot's own run code (object: `key in input`, own keys but __proto__, prototype and
 * constructor; optional: a default replaces undefined; a pipe: its items in order). A schema
 * part not listed here throws Unsupported: the caller then leaves that value to the schema.
 */
import type * as v from "valibot";

export class Unsupported extends Error {}

type Node = v.GenericSchema & Record<string, unknown>;
type Item = { kind: string; type: string; requirement?: unknown; broken?: unknown } & Record<string, unknown>;

/** Module-level constants the functions share (option lists, patterns, checks). */
export class Emitter {
  readonly consts: string[] = [];

  /** patterns: false leaves a schema with a regex to valibot (a pattern costs a process ~0.1 ms to compile). */
  constructor(private readonly opts: { patterns?: boolean } = {}) {}

  private n = 0;

  private readonly named = new Map<string, string>();

  /** A constant's name; the same source is written once. */
  constName(prefix: string, source: string): string {
    const known = this.named.get(`${prefix} ${source}`);
    if (known) return known;
    const name = `${prefix}_${this.consts.length}`;
    this.consts.push(`const ${name} = ${source};`);
    this.named.set(`${prefix} ${source}`, name);
    return name;
  }

  fresh(prefix = "v"): string {
    return `${prefix}${this.n++}`;
  }

  /** `export function name(value: unknown): ret | undefined { … }` for the schema. */
  reader(name: string, schema: v.GenericSchema, ret = "unknown"): string {
    return `export function ${name}(value: unknown): ${ret} | undefined {\n${this.body(schema as Node, ret, "")}}`;
  }

  /** `(value: unknown): ret | undefined => { … }` for the schema. */
  arrow(schema: v.GenericSchema, ret = "unknown", ind = ""): string {
    return `(value: unknown): ${ret} | undefined => {\n${this.body(schema as Node, ret, ind)}${ind}}`;
  }

  private body(schema: Node, ret: string, ind: string): string {
    const lines: string[] = [];
    const out = this.gen(schema, "value", lines, `${ind}  `);
    return `${lines.join("\n")}\n${ind}  return ${ret === "unknown" ? out : `${out} as ${ret}`};\n`;
  }

  /**
   * Emits the checks of `schema` on the identifier `x` into `lines` (each refusal a `return
   * undefined`); returns the identifier of its output, `x` itself where the output is the input.
   */
  gen(schema: Node, x: string, lines: string[], ind: string): string {
    const pipe = schema.pipe as Item[] | undefined;
    if (!pipe) return this.base(schema, x, lines, ind);
    // The first item is the schema itself (without this pipe; with its own, when pipes nest).
    const first = pipe[0] as unknown as Node;
    let cur = this.gen(first, x, lines, ind);
    let kind = first.type;
    for (const item of pipe.slice(1)) {
      if (item.kind === "metadata") continue;
      if (item.kind === "schema") {
        cur = this.gen(item as unknown as Node, cur, lines, ind);
        kind = item.type;
      } else if (item.kind === "validation") this.action(item, kind, cur, lines, ind);
      else throw new Unsupported(`pipe item ${item.type}`);
    }
    return cur;
  }

  /** `const vN = expr;`, for a value read out of another. */
  private bind(expr: string, lines: string[], ind: string): string {
    const x = this.fresh();
    lines.push(`${ind}const ${x} = ${expr};`);
    return x;
  }

  /** The schema itself, without its pipe. */
  private base(s: Node, x: string, lines: string[], ind: string): string {
    switch (s.type) {
      case "unknown":
        return x;
      case "string":
      case "boolean":
        lines.push(`${ind}if (typeof ${x} !== "${s.type}") return undefined;`);
        return x;
      case "number":
        lines.push(`${ind}if (typeof ${x} !== "number" || Number.isNaN(${x})) return undefined;`);
        return x;
      case "literal":
        lines.push(`${ind}if (${x} !== ${literal(s.literal)}) return undefined;`);
        return x;
      case "picklist":
        lines.push(
          `${ind}if (!${this.constName("OPTIONS", `${literal(s.options)} as readonly unknown[]`)}.includes(${x})) return undefined;`,
        );
        return x;
      case "optional": {
        if (typeof s.default === "function") throw new Unsupported("a default computed by a function");
        const given =
          s.default === undefined ? x : this.bind(`${x} === undefined ? ${literal(s.default)} : ${x}`, lines, ind);
        const inner: string[] = [];
        const out = this.gen(s.wrapped as Node, given, inner, `${ind}  `);
        if (out === given) {
          // One check: `if (x !== undefined && (check)) return undefined;`
          const one = inner.length === 1 ? /^\s*if \((.*)\) return undefined;$/.exec(inner[0] ?? "") : null;
          if (one) lines.push(`${ind}if (${given} !== undefined && (${one[1]})) return undefined;`);
          else if (inner.length > 0) lines.push(`${ind}if (${given} !== undefined) {`, ...inner, `${ind}}`);
          return given;
        }
        const o = this.fresh("o");
        lines.push(
          `${ind}let ${o}: unknown;`,
          `${ind}if (${given} !== undefined) {`,
          ...inner,
          `${ind}  ${o} = ${out};`,
          `${ind}}`,
        );
        return o;
      }
      case "array": {
        const a = this.fresh("a");
        const i = this.fresh("i");
        lines.push(
          `${ind}if (!Array.isArray(${x})) return undefined;`,
          `${ind}const ${a}: unknown[] = [];`,
          `${ind}for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {`,
        );
        const out = this.gen(s.item as Node, this.bind(`${x}[${i}]`, lines, `${ind}  `), lines, `${ind}  `);
        lines.push(`${ind}  ${a}.push(${out});`, `${ind}}`);
        return a;
      }
      case "record": {
        const key = s.key as Node;
        if (key.type !== "string" || key.pipe) throw new Unsupported("a record key other than a plain string");
        const r = this.fresh("r");
        const k = this.fresh("k");
        lines.push(
          `${ind}if (!${x} || typeof ${x} !== "object") return undefined;`,
          `${ind}const ${r}: Record<string, unknown> = {};`,
        );
        lines.push(
          `${ind}for (const ${k} in ${x}) {`,
          `${ind}  if (!Object.hasOwn(${x}, ${k}) || ${k} === "__proto__" || ${k} === "prototype" || ${k} === "constructor") continue;`,
        );
        const out = this.gen(
          s.value as Node,
          this.bind(`(${x} as Record<string, unknown>)[${k}]`, lines, `${ind}  `),
          lines,
          `${ind}  `,
        );
        lines.push(`${ind}  ${r}[${k}] = ${out};`, `${ind}}`);
        return r;
      }
      case "object":
      case "loose_object":
        return this.object(s, x, lines, ind);
      case "variant":
        return this.variant(s, x, lines, ind);
      default:
        throw new Unsupported(`schema ${s.type}`);
    }
  }

  private object(s: Node, x: string, lines: string[], ind: string): string {
    const entries = Object.entries(s.entries as Record<string, Node>);
    const o = this.fresh("o");
    lines.push(`${ind}if (!${x} || typeof ${x} !== "object") return undefined;`);
    const r =
      entries.length > 0 || s.type === "loose_object" ? this.bind(`${x} as Record<string, unknown>`, lines, ind) : "";
    lines.push(`${ind}const ${o}: Record<string, unknown> = {};`);
    for (const [key, entry] of entries) {
      if (entry.fallback !== undefined) throw new Unsupported("a fallback");
      const k = literal(key);
      if (entry.type === "exact_optional" || entry.type === "nullish") throw new Unsupported(`entry ${entry.type}`);
      if (entry.type === "optional" && entry.default !== undefined) {
        const out = this.gen(entry, this.bind(`${k} in ${r} ? ${r}[${k}] : undefined`, lines, ind), lines, ind);
        lines.push(`${ind}${o}[${k}] = ${out};`);
      } else if (entry.type === "optional") {
        const inner: string[] = [];
        const out = this.gen(entry, this.bind(`${r}[${k}]`, inner, `${ind}  `), inner, `${ind}  `);
        lines.push(`${ind}if (${k} in ${r}) {`, ...inner, `${ind}  ${o}[${k}] = ${out};`, `${ind}}`);
      } else {
        lines.push(`${ind}if (!(${k} in ${r})) return undefined;`);
        const out = this.gen(entry, this.bind(`${r}[${k}]`, lines, ind), lines, ind);
        lines.push(`${ind}${o}[${k}] = ${out};`);
      }
    }
    if (s.type === "loose_object") {
      const k = this.fresh("k");
      const known = entries.map(([e]) => ` && ${k} !== ${literal(e)}`).join("");
      lines.push(
        `${ind}for (const ${k} in ${r}) if (Object.hasOwn(${r}, ${k}) && ${k} !== "__proto__" && ${k} !== "prototype" && ${k} !== "constructor"${known}) ${o}[${k}] = ${r}[${k}];`,
      );
    }
    return o;
  }

  /** valibot's variant: the first option whose discriminator matches and which accepts the value. */
  private variant(s: Node, x: string, lines: string[], ind: string): string {
    const key = literal(s.key);
    const out = this.fresh("w");
    lines.push(`${ind}if (!${x} || typeof ${x} !== "object") return undefined;`, `${ind}let ${out}: unknown;`);
    for (const option of s.options as Node[]) {
      if (option.type !== "object" && option.type !== "loose_object")
        throw new Unsupported(`variant option ${option.type}`);
      const disc = (option.entries as Record<string, Node>)[s.key as string];
      if (!disc || disc.type === "optional") throw new Unsupported("an optional discriminator");
      const check = this.constName("IS", this.arrow(disc));
      const read = this.constName("READ", this.arrow(option, "Record<string, unknown>"));
      lines.push(
        `${ind}if (${out} === undefined && ${key} in ${x} && ${check}((${x} as Record<string, unknown>)[${key}]) !== undefined) ${out} = ${read}(${x});`,
      );
    }
    lines.push(`${ind}if (${out} === undefined) return undefined;`);
    return out;
  }

  private action(item: Item, kind: string, x: string, lines: string[], ind: string): void {
    const req = item.requirement;
    const on = (kinds: string[]) => {
      if (!kinds.includes(kind)) throw new Unsupported(`${item.type} on ${kind}`);
    };
    switch (item.type) {
      case "min_length":
        on(["string", "array"]);
        lines.push(`${ind}if (${x}.length < ${num(req)}) return undefined;`);
        return;
      case "max_length":
        on(["string", "array"]);
        lines.push(`${ind}if (${x}.length > ${num(req)}) return undefined;`);
        return;
      case "min_value":
        on(["number"]);
        lines.push(`${ind}if (!(${x} >= ${num(req)})) return undefined;`);
        return;
      case "max_value":
        on(["number"]);
        lines.push(`${ind}if (!(${x} <= ${num(req)})) return undefined;`);
        return;
      case "integer":
        on(["number"]);
        lines.push(`${ind}if (!Number.isInteger(${x})) return undefined;`);
        return;
      case "regex": {
        on(["string"]);
        if (this.opts.patterns === false) throw new Unsupported("a pattern");
        if (!(req instanceof RegExp) || req.global || req.sticky) throw new Unsupported("a stateful pattern");
        lines.push(`${ind}if (!${this.constName("PATTERN", String(req))}.test(${x})) return undefined;`);
        return;
      }
      case "check":
        lines.push(
          `${ind}if (!${this.constName("CHECK", `(${selfContained(req)}) as (input: any) => boolean`)}(${x})) return undefined;`,
        );
        return;
      case "raw_check":
        // A cross-field rule (src/protocol/rules.ts): its predicate says when the arguments break it.
        if (typeof item.broken !== "function") throw new Unsupported("a raw check that is not a rule");
        on(["object"]);
        lines.push(
          `${ind}if (${this.constName("RULE", `(${selfContained(item.broken)}) as (args: any) => boolean`)}(${x})) return undefined;`,
        );
        return;
      default:
        throw new Unsupported(`action ${item.type}`);
    }
  }
}

function literal(x: unknown): string {
  if (x === undefined) return "undefined";
  if (typeof x === "number" && !Number.isFinite(x)) throw new Unsupported("a number JSON cannot write");
  const json = JSON.stringify(x);
  if (json === undefined || !Bun.deepEquals(JSON.parse(json), x, true))
    throw new Unsupported("a value JSON cannot write");
  return json;
}

function num(x: unknown): string {
  if (typeof x !== "number") throw new Unsupported("a bound that is not a number");
  return literal(x);
}

/** Names a function may use without taking them from the module it was written in. */
const GLOBALS = new Set([
  "undefined",
  "null",
  "true",
  "false",
  "typeof",
  "void",
  "in",
  "of",
  "instanceof",
  "new",
  "return",
  "const",
  "let",
  "if",
  "else",
  "Array",
  "Number",
  "Object",
  "String",
  "Boolean",
  "Math",
  "isNaN",
  "Infinity",
  "NaN",
]);

/**
 * The function's source, when it names nothing but its parameters and plain globals (so it
 * means the same written into another module); Unsupported otherwise.
 */
export function selfContained(fn: unknown): string {
  if (typeof fn !== "function") throw new Unsupported("not a function");
  const src = fn.toString();
  if (src.includes("`") || src.includes("/*") || src.includes("//") || /\bthis\b|\bfunction\b/.test(src))
    throw new Unsupported("a function too complex to copy");
  const code = src.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
  const params = new Set<string>();
  for (const m of code.matchAll(/\(([^()]*)\)\s*=>/g)) for (const p of (m[1] ?? "").split(",")) params.add(p.trim());
  for (const m of code.matchAll(/([A-Za-z_$][\w$]*)\s*=>/g)) params.add(m[1] ?? "");
  for (const m of code.matchAll(/(^|[^.\w$])([A-Za-z_$][\w$]*)/g)) {
    const id = m[2] ?? "";
    if (!params.has(id) && !GLOBALS.has(id)) throw new Unsupported(`a function that names ${id}`);
  }
  return src;
}
