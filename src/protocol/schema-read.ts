import type * as v from "valibot";

/**
 * Reading the command table's schemas (help, parsing, `bp schema`) by valibot's own types.
 * Every valibot schema and action names itself in `type`; these guards narrow on it to the
 * valibot interface that carries the documented properties (`entries`, `wrapped`, `options`,
 * `pipe`, `requirement`...), so no reader keeps its own idea of a schema's shape.
 */
interface Schemas {
  object: v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;
  strict_object: v.StrictObjectSchema<v.ObjectEntries, v.ErrorMessage<v.StrictObjectIssue> | undefined>;
  optional: v.OptionalSchema<v.GenericSchema, unknown>;
  nullable: v.NullableSchema<v.GenericSchema, unknown>;
  array: v.ArraySchema<v.GenericSchema, v.ErrorMessage<v.ArrayIssue> | undefined>;
  record: v.RecordSchema<
    v.GenericSchema<string, string | number | symbol>,
    v.GenericSchema,
    v.ErrorMessage<v.RecordIssue> | undefined
  >;
  union: v.UnionSchema<v.UnionOptions, v.ErrorMessage<v.UnionIssue<v.BaseIssue<unknown>>> | undefined>;
  picklist: v.PicklistSchema<v.PicklistOptions, v.ErrorMessage<v.PicklistIssue> | undefined>;
  literal: v.LiteralSchema<v.Literal, v.ErrorMessage<v.LiteralIssue> | undefined>;
}

interface Actions {
  description: v.DescriptionAction<unknown, string>;
  min_value: v.MinValueAction<
    v.ValueInput,
    v.ValueInput,
    v.ErrorMessage<v.MinValueIssue<v.ValueInput, v.ValueInput>> | undefined
  >;
  max_value: v.MaxValueAction<
    v.ValueInput,
    v.ValueInput,
    v.ErrorMessage<v.MaxValueIssue<v.ValueInput, v.ValueInput>> | undefined
  >;
  min_length: v.MinLengthAction<
    v.LengthInput,
    number,
    v.ErrorMessage<v.MinLengthIssue<v.LengthInput, number>> | undefined
  >;
  max_length: v.MaxLengthAction<
    v.LengthInput,
    number,
    v.ErrorMessage<v.MaxLengthIssue<v.LengthInput, number>> | undefined
  >;
  regex: v.RegexAction<string, v.ErrorMessage<v.RegexIssue<string>> | undefined>;
}

type Typed = { readonly type: string };

export function isSchema<K extends keyof Schemas>(schema: Typed, type: K): schema is Schemas[K] {
  return schema.type === type;
}

export function isAction<K extends keyof Actions>(item: Typed, type: K): item is Actions[K] {
  return item.type === type;
}

/** A schema with a pipe (v.pipe keeps the first schema's type and adds the pipe). */
export function isPiped(schema: Typed): schema is v.SchemaWithPipe<readonly [v.GenericSchema, ...v.GenericPipeItem[]]> {
  return "pipe" in schema;
}

/** The actions piped after a schema (none when it has no pipe). */
export function pipeActions(schema: Typed): readonly v.GenericPipeItem[] {
  return isPiped(schema) ? schema.pipe.slice(1) : [];
}

/**
 * Every action a schema's pipes run, in their order: a pipe whose first item is itself piped
 * (`v.pipe(v.pipe(v.string(), v.maxLength(64)), v.description("Key"))`) runs that inner pipe
 * first, and its actions sit on the inner schema, not in the outer pipe.
 */
export function allPipeActions(schema: Typed): readonly v.GenericPipeItem[] {
  if (!isPiped(schema)) return [];
  const [first, ...rest] = schema.pipe;
  return [...allPipeActions(first), ...rest];
}
