/**
 * Splits argv into option values and positional words; what the options mean and whether
 * their values are valid is the command's valibot schema's business (parse.ts).
 *
 * The grammar is the one bp has always accepted:
 * - `--name value`, `--name=value`; a string option takes the next word whatever it is
 *   (`--limit -5`), or "" when there is none; the camelCase spelling of a name and `--x` for
 *   a one-letter alias are the same option;
 * - `--flag`, `--flag=false` (any other value is true), `--no-flag` (false, wins over `--flag`);
 * - `-x` for a one-letter alias, `-xVALUE` when x takes a value, `-abc` for several flags;
 * - `--` ends the options; a lone `-` is a word; the last of a repeated option wins.
 * An unknown option is kept (true, or its `=value`) so the caller can name it in the error.
 */
export interface OptionSpec {
  name: string;
  kind: "boolean" | "string";
  alias?: string;
}

export interface SplitArgs {
  /** Option values by canonical name; unknown options under the name as written. */
  values: Record<string, string | boolean>;
  positionals: string[];
}

export function splitArgs(argv: readonly string[], specs: readonly OptionSpec[]): SplitArgs {
  const long = new Map<string, OptionSpec>();
  const short = new Map<string, OptionSpec>();
  for (const s of specs) {
    long.set(s.name, s);
    long.set(camel(s.name), s);
    if (s.alias) {
      short.set(s.alias, s);
      long.set(s.alias, s);
    }
  }
  // `--no-x` is taken out before anything else, so it never serves as another option's value.
  const negated: string[] = [];
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--") {
      words.push(...argv.slice(i));
      break;
    }
    if (a.startsWith("--no-")) negated.push(a.slice(5));
    else words.push(a);
  }

  // No prototype: an option named like an Object property stays a plain key.
  const values: Record<string, string | boolean> = Object.create(null) as Record<string, string | boolean>;
  const positionals: string[] = [];
  const set = (name: string, spec: OptionSpec | undefined, value: string | boolean) => {
    if (!spec) values[name] = value;
    else if (spec.kind === "boolean") values[spec.name] = typeof value === "string" ? value !== "false" : value;
    else values[spec.name] = value === true ? "" : value;
  };
  for (let i = 0; i < words.length; i++) {
    const a = words[i] ?? "";
    if (a === "--") {
      positionals.push(...words.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const spec = long.get(name);
      if (eq >= 0) set(name, spec, a.slice(eq + 1));
      else if (spec?.kind === "string" && i + 1 < words.length) set(name, spec, words[++i] ?? "");
      else set(name, spec, true);
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const ch = a[j] ?? "";
        const spec = short.get(ch);
        if (spec?.kind === "string") {
          // The rest of the word is its value (`-t500`), else the next word.
          if (j + 1 < a.length) set(ch, spec, a.slice(j + 1));
          else if (i + 1 < words.length) set(ch, spec, words[++i] ?? "");
          else set(ch, spec, true);
          break;
        }
        set(ch, spec, true);
      }
      continue;
    }
    positionals.push(a);
  }
  for (const name of negated) {
    const spec = long.get(name);
    values[spec ? spec.name : name] = false;
  }
  return { values, positionals };
}

/** `to-text` → `toText`; by hand, as compiling a regular expression costs a call ~0.1 ms. */
export function camel(name: string): string {
  if (!name.includes("-")) return name;
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const next = name.charCodeAt(i + 1);
    if (name[i] === "-" && next >= 97 && next <= 122) out += name.charAt(++i).toUpperCase();
    else out += name.charAt(i);
  }
  return out;
}
