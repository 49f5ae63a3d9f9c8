import { OPERATIONS, type Operation } from './operations';

/**
 * The operation a request is for, from its method and path, matched against the operations'
 * path templates (lib/api/operations.ts, which also names each one's scope): the one declaration
 * the OpenAPI document, the scope check and the tests read.
 */
const compiled = OPERATIONS.map((op) => ({
  op,
  pattern: new RegExp(`^${op.path.replaceAll('.', '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
  // static segments before parameters, as Next.js matches them
  weight: (op.path.match(/\{/g) ?? []).length,
})).sort((a, b) => a.weight - b.weight);

export function operationFor(method: string, pathname: string): Operation | null {
  const verb = method === 'HEAD' ? 'get' : method.toLowerCase(); // Next.js answers HEAD with the GET handler
  return compiled.find(({ op, pattern }) => op.method === verb && pattern.test(pathname))?.op ?? null;
}
