import { z } from 'zod';
import type { Operation } from './operation';
import { shapeChecked, type DomainOf } from './shape';

/**
 * The one way a /v1 operation answers success: its handler returns a domain value (camelCase,
 * `AnswerOf`), and the answer is that value shaped through the operation's response schema
 * (lib/api/shape.ts) under the operation's status, in the envelope the schema declares. The
 * envelope is `success: true` before the value's fields; the schemas of a resource the API has always
 * answered as itself (a check's result, the account, a created webhook or key, an updated key:
 * docs/api.md) declare no `success`, and their answers stay bare, so no client sees a change.
 * A handler never writes `success` itself.
 *
 * Outside production every answer is checked against the schema before it leaves (`shapeChecked`,
 * lib/api/shape.ts):
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
  const body = shapeChecked(schema, declaresEnvelope(schema) ? { success: true, ...value } : value, `${op.operationId}: the answer`, 'its response schema');
  return Response.json(body, { status });
}
