import { z } from 'zod';
import type { Evidence, Verdict, VerdictDetails } from '../verifier/types';

/**
 * The wire body of an answer, built from a domain value by walking the operation's response schema
 * (lib/api/answer.ts). Domain code speaks camelCase; the API speaks snake_case. For an object key
 * `job_id` the shaper takes `value.jobId`, or `value.job_id` (the verdict's fields, which are
 * snake_case by design in lib/verifier/types.ts), in the value's order of fields. Arrays map; optional, nullable
 * and default unwrap; a union takes its first member whose shaped value parses; a record, `unknown`
 * or `any` (metadata, user data) passes through untouched, its keys never renamed; a `Date` where
 * the schema wants a string becomes its ISO text. The shapers are built once per schema.
 */

/** `job_id` → `jobId`. */
export type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/** The verifier's own snake_case fields: domain values carry them as the verdict names them. */
type VerdictKey = Extract<keyof Verdict | keyof VerdictDetails | keyof Evidence, `${string}_${string}`>;
type DomainKey<K> = K extends VerdictKey ? K : K extends string ? Camel<K> : K;

/**
 * The domain value a schema's input is shaped from: keys camelCased recursively (the verdict's
 * fields kept), literals widened to their primitive (domain code types its vocabularies as `string`
 * in places; the check holds the values), a string also given as a `Date`, records and `unknown` as
 * they are.
 */
export type DomainOf<T> = unknown extends T
  ? T
  : T extends string
    ? string | Date
    : T extends boolean
      ? boolean
      : T extends number
        ? number
        : T extends readonly (infer U)[]
          ? readonly DomainOf<U>[]
          : T extends object
            ? string extends keyof T
              ? T
              : { [K in keyof T as DomainKey<K>]: DomainOf<T[K]> }
            : T;

/** A contract type with its keys as domain code spells them (the verdict's fields and records kept), its values as they are. */
export type CamelKeys<T> = unknown extends T
  ? T
  : T extends readonly (infer U)[]
    ? CamelKeys<U>[]
    : T extends object
      ? string extends keyof T
        ? T
        : { [K in keyof T as DomainKey<K>]: CamelKeys<T[K]> }
      : T;

export const camel = (key: string): string => key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

/** Where the walk collects the first field of the value that its schema does not declare (outside production). */
export interface ShapeCheck {
  extra: string | null;
}

type Shaper = (value: unknown, check: ShapeCheck | null, at: string) => unknown;

const shapers = new WeakMap<z.ZodType, Shaper>();

/** The wire body of `value` for `schema`; with `check`, the first undeclared field of the value is noted in it. */
export function shape(schema: z.ZodType, value: unknown, check: ShapeCheck | null = null): unknown {
  return shaperOf(schema)(value, check, '');
}

/**
 * `shape`, with the check answers and events get outside production (lib/api/answer.ts,
 * lib/webhooks/outbox.ts): a field of the value its schema does not declare, or a shaped value the
 * schema refuses, throws naming `subject` and `schemaName`. In production it only shapes.
 */
export function shapeChecked(schema: z.ZodType, value: unknown, subject: string, schemaName: string): unknown {
  if (process.env.NODE_ENV === 'production') return shape(schema, value);
  const check: ShapeCheck = { extra: null };
  const body = shape(schema, value, check);
  if (check.extra) throw new Error(`${subject} has ${check.extra}, which ${schemaName} does not declare`);
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Error(`${subject} does not match ${schemaName}: ${z.prettifyError(parsed.error)}`);
  return body;
}

const passThrough: Shaper = (value) => value;
const leaf: Shaper = (value) => value;
const text: Shaper = (value) => (value instanceof Date ? value.toISOString() : value);

function shaperOf(schema: z.ZodType): Shaper {
  let found = shapers.get(schema);
  if (!found) {
    // a placeholder first, so a schema that refers to itself (z.lazy) ends
    shapers.set(schema, (value, check, at) => shapers.get(schema)?.(value, check, at));
    found = build(schema);
    shapers.set(schema, found);
  }
  return found;
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  options?: z.ZodType[];
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
};

function build(schema: z.ZodType): Shaper {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  switch (def.type) {
    case 'object':
      return objectShaper(def.shape ?? {});
    case 'array': {
      const element = shaperOf(def.element as z.ZodType);
      return (value, check, at) => (Array.isArray(value) ? value.map((item, i) => element(item, check, check ? `${at}[${i}]` : at)) : value);
    }
    case 'union':
      return unionShaper(def.options ?? []);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch': {
      const inner = shaperOf(def.innerType as z.ZodType);
      return (value, check, at) => (value === null || value === undefined ? value : inner(value, check, at));
    }
    case 'pipe':
      return shaperOf(def.in as z.ZodType);
    case 'lazy':
      return (value, check, at) => shaperOf((def.getter as () => z.ZodType)())(value, check, at);
    case 'record':
    case 'unknown':
    case 'any':
      return passThrough;
    case 'string':
    case 'template_literal':
      return text;
    default:
      return leaf;
  }
}

function objectShaper(fields: Record<string, z.ZodType>): Shaper {
  // each field under its wire name and its domain name; the body keeps the value's order of fields
  const byName = new Map<string, { wire: string; shaper: Shaper }>();
  for (const wire of Object.keys(fields)) {
    const field = { wire, shaper: shaperOf(fields[wire] as z.ZodType) };
    byName.set(camel(wire), field);
    byName.set(wire, field);
  }
  return (value, check, at) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) return value;
    const from = value as Record<string, unknown>;
    const body: Record<string, unknown> = {};
    for (const name in from) {
      const field = from[name];
      if (field === undefined || !Object.hasOwn(from, name)) continue;
      const known = byName.get(name);
      // the path is written only when checking (outside production)
      if (known) body[known.wire] = known.shaper(field, check, check ? `${at}.${known.wire}` : at);
      else if (check && check.extra === null) check.extra = `${at}.${name}`;
    }
    return body;
  };
}

function unionShaper(options: z.ZodType[]): Shaper {
  const members = options.map((option) => ({ option, shaper: shaperOf(option) }));
  return (value, check, at) => {
    for (const { option, shaper } of members) {
      const trial: ShapeCheck = { extra: null };
      const shaped = shaper(value, trial, at);
      if (trial.extra === null && option.safeParse(shaped).success) return shaped;
    }
    // no member fits: the first member's shape, for the check to name what is wrong
    return members[0] ? members[0].shaper(value, check, at) : value;
  };
}
