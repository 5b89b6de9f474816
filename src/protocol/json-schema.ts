import type { AnySchema } from "./define.ts";

type Json = Record<string, unknown>;

interface Node {
  type: string;
  expects?: string;
  entries?: Record<string, Node>;
  item?: Node;
  wrapped?: Node;
  options?: readonly unknown[];
  literal?: unknown;
  value?: Node;
  pipe?: readonly Node[];
  default?: unknown;
  requirement?: unknown;
  description?: string;
}

/**
 * Valibot → JSON Schema for the subset our command table uses. Small on purpose: the
 * official converter would be one more dependency for one rarely-run command.
 */
export function toJsonSchema(schema: AnySchema): Json {
  return convert(schema as unknown as Node);
}

function convert(node: Node): Json {
  const out = base(node);
  for (const step of node.pipe?.slice(1) ?? []) applyAction(out, step);
  return out;
}

function base(node: Node): Json {
  switch (node.type) {
    case "string":
      return { type: "string" };
    case "number":
      return { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "literal":
      return { const: node.literal };
    case "picklist":
      return { enum: [...(node.options ?? [])] };
    case "null":
      return { type: "null" };
    case "unknown":
    case "any":
      return {};
    case "array":
      return { type: "array", items: node.item ? convert(node.item) : {} };
    case "record":
      return { type: "object", additionalProperties: node.value ? convert(node.value) : {} };
    case "optional": {
      const inner = node.wrapped ? convert(node.wrapped) : {};
      if (node.default !== undefined && typeof node.default !== "function") inner.default = node.default;
      return inner;
    }
    case "nullable":
      return { anyOf: [node.wrapped ? convert(node.wrapped) : {}, { type: "null" }] };
    case "union":
      return { anyOf: (node.options as Node[] | undefined ?? []).map(convert) };
    case "object": {
      const properties: Json = {};
      const required: string[] = [];
      for (const [key, value] of Object.entries(node.entries ?? {})) {
        properties[key] = convert(value);
        if (value.type !== "optional") required.push(key);
      }
      const obj: Json = { type: "object", properties, additionalProperties: false };
      if (required.length > 0) obj.required = required;
      return obj;
    }
    default:
      return {};
  }
}

function applyAction(out: Json, step: Node): void {
  switch (step.type) {
    case "description":
      out.description = step.description;
      break;
    case "integer":
      out.type = "integer";
      break;
    case "min_value":
      out.minimum = step.requirement;
      break;
    case "max_value":
      out.maximum = step.requirement;
      break;
    case "min_length":
      out[out.type === "array" ? "minItems" : "minLength"] = step.requirement;
      break;
    case "max_length":
      out[out.type === "array" ? "maxItems" : "maxLength"] = step.requirement;
      break;
    case "regex":
      out.pattern = (step.requirement as RegExp).source;
      break;
  }
}
