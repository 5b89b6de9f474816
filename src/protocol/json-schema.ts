import type * as v from "valibot";
import type { AnySchema } from "./define.ts";
import { isAction, isSchema, pipeActions } from "./schema-read.ts";

type Json = Record<string, unknown>;

/**
 * Valibot → JSON Schema for the subset our command table uses, read through valibot's own
 * schema types (./schema-read.ts). Small on purpose: the official converter would be one
 * more dependency for one rarely-run command.
 */
export function toJsonSchema(schema: AnySchema): Json {
  const out = base(schema);
  for (const step of pipeActions(schema)) applyAction(out, step);
  return out;
}

function base(node: AnySchema): Json {
  switch (node.type) {
    case "string":
      return { type: "string" };
    case "number":
      return { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "null":
      return { type: "null" };
    case "unknown":
    case "any":
      return {};
  }
  if (isSchema(node, "literal")) return { const: node.literal };
  if (isSchema(node, "picklist")) return { enum: [...node.options] };
  if (isSchema(node, "array")) return { type: "array", items: toJsonSchema(node.item) };
  if (isSchema(node, "record")) return { type: "object", additionalProperties: toJsonSchema(node.value) };
  if (isSchema(node, "optional")) {
    const inner = toJsonSchema(node.wrapped);
    if (node.default !== undefined && typeof node.default !== "function") inner.default = node.default;
    return inner;
  }
  if (isSchema(node, "nullable")) return { anyOf: [toJsonSchema(node.wrapped), { type: "null" }] };
  if (isSchema(node, "union")) return { anyOf: node.options.map((o) => toJsonSchema(o)) };
  if (isSchema(node, "object") || isSchema(node, "strict_object")) {
    const properties: Json = {};
    const required: string[] = [];
    for (const [key, value] of Object.entries(node.entries)) {
      properties[key] = toJsonSchema(value);
      if (value.type !== "optional") required.push(key);
    }
    const obj: Json = { type: "object", properties, additionalProperties: false };
    if (required.length > 0) obj.required = required;
    return obj;
  }
  return {};
}

function applyAction(out: Json, step: v.GenericPipeItem): void {
  if (isAction(step, "description")) out.description = step.description;
  else if (step.type === "integer") out.type = "integer";
  else if (isAction(step, "min_value")) out.minimum = step.requirement;
  else if (isAction(step, "max_value")) out.maximum = step.requirement;
  else if (isAction(step, "min_length")) out[out.type === "array" ? "minItems" : "minLength"] = step.requirement;
  else if (isAction(step, "max_length")) out[out.type === "array" ? "maxItems" : "maxLength"] = step.requirement;
  else if (isAction(step, "regex")) out.pattern = step.requirement.source;
}
