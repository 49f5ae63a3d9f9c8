/// <reference types="vite/client" />
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApi } from '@/lib/api/openapi';
import * as unknownPath from '@/app/v1/[...path]/route';

/**
 * Checks answers against the OpenAPI document (lib/api/openapi.ts): the test harness runs every
 * response through here, so a route cannot answer what the document does not say.
 */

/**
 * Each route module under the path template the document gives it (`[jobId]` → `{jobId}`), found by
 * its file: a new route file is validated with no list to edit (the unknown-path catch-all aside).
 */
export const ROUTE_MODULES: Record<string, Record<string, unknown>> = Object.fromEntries(
  Object.entries(import.meta.glob<Record<string, unknown>>('/app/v1/**/route.ts', { eager: true }))
    .filter(([file]) => !file.includes('[...path]'))
    .map(([file, module]) => [
      file
        .replace(/^\/app/, '')
        .replace(/\/route\.ts$/, '')
        .replace(/\[(\w+)\]/g, '{$1}'),
      module,
    ]),
);

type Doc = ReturnType<typeof buildOpenApi> & {
  paths: Record<string, Record<string, { responses: Record<string, any> }>>;
  components: { responses: Record<string, any>; headers: Record<string, any>; schemas: Record<string, unknown> };
};

let state: { doc: Doc; ajv: Ajv2020; byHandler: Map<unknown, { path: string; method: string }> } | null = null;

function load() {
  if (state) return state;
  const doc = buildOpenApi() as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The components as one schema, so every $ref of the document resolves inside it.
  const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', '"contract#/$defs/'));
  ajv.addSchema({ $id: 'contract', $defs: defs });
  const byHandler = new Map<unknown, { path: string; method: string }>();
  for (const [path, module] of Object.entries(ROUTE_MODULES)) {
    for (const [method, handler] of Object.entries(module)) {
      if (typeof handler === 'function') byHandler.set(handler, { path, method: method.toLowerCase() });
    }
  }
  state = { doc, ajv, byHandler };
  return state;
}

const compiled = new Map<unknown, ValidateFunction>();

function validator(ajv: Ajv2020, schema: unknown): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"contract#/$defs/'));
    validate = ajv.compile(rewritten);
    compiled.set(schema, validate);
  }
  return validate;
}

function deref(doc: Doc, node: any): any {
  const $ref: string | undefined = node?.$ref;
  if (!$ref) return node;
  const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec($ref)!;
  return (doc.components as any)[section!][name!];
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** Throws when the answer of `handler` is not one the document allows. */
export function assertMatchesContract(handler: unknown, answer: Answer): void {
  const { doc, ajv, byHandler } = load();
  const route = byHandler.get(handler);
  const where = route ? `${route.method.toUpperCase()} ${route.path} → ${answer.status}` : `catch-all → ${answer.status}`;
  const mismatch = (what: string) => new Error(`Response does not match the OpenAPI document (${where}): ${what}\n${answer.text.slice(0, 500)}`);
  if (!route) {
    if (handler === unknownPath.GET && answer.status >= 400) {
      checkBody(deref(doc, { $ref: '#/components/responses/NotFound' }));
      return;
    }
    throw new Error('This handler is not in test/api/contract.ts ROUTE_MODULES: add its route there and to lib/api/openapi.ts.');
  }
  const operation = doc.paths[route.path]?.[route.method];
  if (!operation) throw mismatch('the operation is not in the document');
  const response = deref(doc, operation.responses[String(answer.status)]);
  if (!response) throw mismatch(`status ${answer.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
  checkBody(response);

  function checkBody(response: any) {
    for (const [name, header] of Object.entries<any>(response.headers ?? {})) {
      const spec = deref(doc, header);
      const value = answer.headers.get(name);
      if (value === null) {
        if (spec.required) throw mismatch(`header ${name} is missing`);
        continue;
      }
      const validate = validator(ajv, spec.schema);
      if (!validate(value)) throw mismatch(`header ${name}: ${value} ${ajv.errorsText(validate.errors)}`);
    }
    const contentType = answer.headers.get('content-type') ?? '';
    const contents = Object.entries<any>(response.content ?? {});
    // an operation offering JSON and CSV (`?format=csv`) answers either
    const [mediaType, media] = contents.find(([type]) => contentType.startsWith(type)) ?? contents[0] ?? [];
    if (!mediaType) return;
    if (!contentType.startsWith(mediaType)) throw mismatch(`content-type ${contentType}, documented ${mediaType}`);
    if (mediaType !== 'application/json') return;
    const validate = validator(ajv, media.schema);
    if (!validate(answer.json)) throw mismatch(ajv.errorsText(validate.errors, { separator: '\n  ' }));
  }
}

/** Throws when a webhook payload is not the document's schema for its event type. */
export function assertWebhookPayload(payload: { type: string }): void {
  const { doc, ajv } = load();
  const hook = (doc.webhooks as Record<string, any>)[payload.type];
  if (!hook) throw new Error(`Webhook event ${payload.type} is not in the OpenAPI document`);
  const validate = validator(ajv, hook.post.requestBody.content['application/json'].schema);
  if (!validate(payload)) throw new Error(`Webhook payload does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}`);
}
