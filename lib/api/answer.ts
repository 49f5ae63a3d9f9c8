import { z } from 'zod';
import type { Operation } from './operation';
import { shape, type DomainOf, type ShapeCheck } from './shape';

/**
 * The one way a /v1 operation answers success: its handler returns a domain value (camelCase,
 * `AnswerOf`), and the answer is that value shaped through the operation's response schema
 * (lib/api/shape.ts) under the operation's status, in the envelope the schema declares. The
 * envelope is `success: true` before the value's fields; the schemas of a resource the API has always
 * answered as itself (a check's result, the account, a created webhook or key, an updated key:
 * docs/api.md) declare no `success`, and their answers stay bare, so no client sees a change.
 * A handler never writes `success` itself.
 *
 * Outside production every answer is checked against the schema before it leaves (`checkAnswer`):
 * a field the schema does not declare, or a value it does not allow, is a 500 naming the field, so
 * a handler cannot drift from the OpenAPI document (lib/api/openapi.ts) unnoticed.
 */

type JsonSchema<O extends Operation> = O['ok'][1] extends z.ZodType ? O['ok'][1] : never;
type WithoutSuccess<T> = T extends object ? Omit<T, 'success'> : T;

/** What a handler of `O` returns: its response schema's input without the envelope, keys camelCased (lib/api/shape.ts). */
export type AnswerOf<O extends Operation> = [JsonSchema<O>] extends [never] ? never : DomainOf<WithoutSuccess<z.input<JsonSchema<O>>>>;

const enveloped = new WeakMap<z.ZodType, boolean>();

/** Whether a schema declares the envelope: an object with `success`, or a union whose every member has it. */
export function declaresEnvelope(schema: z.ZodType): boolean {
  let known = enveloped.get(schema);
  if (known === undefined) {
    if (schema instanceof z.ZodObject) known = 'success' in schema.shape;
    else if (schema instanceof z.ZodUnion) known = (schema.options as z.ZodType[]).every(declaresEnvelope);
    else known = false;
    enveloped.set(schema, known);
  }
  return known;
}

/** The operation's success answer for a domain value, as JSON. */
export function answer(op: Operation, value: object): Response {
  const [status, schema] = op.ok;
  if (typeof schema === 'string') throw new Error(`${op.operationId} answers ${schema}: its handler returns the Response itself`);
  const checking = process.env.NODE_ENV !== 'production';
  const check: ShapeCheck | null = checking ? { extra: null } : null;
  const body = shape(schema, declaresEnvelope(schema) ? { success: true, ...value } : value, check);
  if (check?.extra) throw new Error(`${op.operationId}: the answer has ${check.extra}, which its response schema does not declare`);
  if (checking) checkAnswer(op, schema, body);
  return Response.json(body, { status });
}

/** Throws when `body` is not what `schema` declares: a value it refuses, or a field it does not name. */
export function checkAnswer(op: Operation, schema: z.ZodType, body: unknown): void {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Error(`${op.operationId}: the answer does not match its response schema: ${z.prettifyError(parsed.error)}`);
  const extra = undeclared(body, parsed.data, '');
  if (extra) throw new Error(`${op.operationId}: the answer has ${extra}, which its response schema does not declare`);
}

/** The first field of `sent` that zod dropped from `kept` (an object schema strips what it does not declare). */
function undeclared(sent: unknown, kept: unknown, at: string): string | null {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    for (let i = 0; i < sent.length; i++) {
      const found = undeclared(sent[i], kept[i], `${at}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (!isRecord(sent) || !isRecord(kept)) return null;
  for (const [name, value] of Object.entries(sent)) {
    if (value === undefined) continue;
    if (!(name in kept)) return `${at}.${name}`;
    const found = undeclared(value, kept[name], `${at}.${name}`);
    if (found) return found;
  }
  return null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !(value instanceof Date);
