// Checks a reply against a command's published result schema, strictly: a field the schema
// does not name is a violation too (valibot's own parse would silently drop it), since an agent
// reading `bp schema <command>` must be able to trust it.
import type { AnySchema } from "../../src/protocol/define.ts";

interface Node {
  type: string;
  entries?: Record<string, Node>;
  item?: Node;
  wrapped?: Node;
  options?: readonly (Node | string | number)[];
  literal?: unknown;
  value?: Node;
}

export function resultViolations(schema: AnySchema, value: unknown): string[] {
  const out: string[] = [];
  check(schema as unknown as Node, value, "$", out);
  return out;
}

function check(node: Node, value: unknown, path: string, out: string[]): void {
  switch (node.type) {
    case "optional":
      if (value !== undefined && node.wrapped) check(node.wrapped, value, path, out);
      return;
    case "nullable":
      if (value !== null && node.wrapped) check(node.wrapped, value, path, out);
      return;
    case "string":
    case "number":
    case "boolean":
      if (typeof value !== node.type)
        out.push(`${path}: ${node.type} expected, got ${JSON.stringify(value)?.slice(0, 80)}`);
      return;
    case "null":
      if (value !== null) out.push(`${path}: null expected`);
      return;
    case "literal":
      if (value !== node.literal)
        out.push(`${path}: ${JSON.stringify(node.literal)} expected, got ${JSON.stringify(value)?.slice(0, 80)}`);
      return;
    case "picklist":
      if (!node.options?.includes(value as string))
        out.push(
          `${path}: one of ${JSON.stringify(node.options)} expected, got ${JSON.stringify(value)?.slice(0, 80)}`,
        );
      return;
    case "array":
      if (!Array.isArray(value)) out.push(`${path}: array expected`);
      else if (node.item) {
        const item = node.item as Node;
        value.forEach((x, i) => {
          check(item, x, `${path}[${i}]`, out);
        });
      }
      return;
    case "record":
      if (typeof value !== "object" || value === null || Array.isArray(value)) out.push(`${path}: object expected`);
      else if (node.value) for (const [k, x] of Object.entries(value)) check(node.value, x, `${path}.${k}`, out);
      return;
    case "union": {
      const ok = (node.options as Node[]).some((o) => {
        const sub: string[] = [];
        check(o, value, path, sub);
        return sub.length === 0;
      });
      if (!ok) out.push(`${path}: matches no branch of its union: ${JSON.stringify(value)?.slice(0, 120)}`);
      return;
    }
    case "object":
    case "strict_object":
    case "loose_object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        out.push(`${path}: object expected`);
        return;
      }
      const entries = node.entries ?? {};
      for (const [k, sub] of Object.entries(entries))
        check(sub, (value as Record<string, unknown>)[k], `${path}.${k}`, out);
      if (node.type !== "loose_object")
        for (const k of Object.keys(value)) if (!(k in entries)) out.push(`${path}.${k}: not in the published schema`);
      return;
    }
    default:
      // unknown, any and pipes' own actions: nothing more to check.
      return;
  }
}
