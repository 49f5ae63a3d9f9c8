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

// Every request asks (the role check, and a session's two-factor and sign-in method): the answer
// for a method and path is kept, so a hot path matches its patterns once per process.
const known = new Map<string, Operation | null>();

export function operationFor(method: string, pathname: string): Operation | null {
  const verb = method === 'HEAD' ? 'get' : method.toLowerCase(); // Next.js answers HEAD with the GET handler
  const key = `${verb} ${pathname}`;
  let op = known.get(key);
  if (op === undefined) {
    op = compiled.find(({ op: candidate, pattern }) => candidate.method === verb && pattern.test(pathname))?.op ?? null;
    // paths carry ids: the map is bounded by starting again
    if (known.size >= 10_000) known.clear();
    known.set(key, op);
  }
  return op;
}
