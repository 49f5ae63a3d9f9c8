import { describe, expect, it } from 'vitest';
import * as unknownPath from '@/app/v1/[...path]/route';
import { ROUTE_MODULES } from '@/test/api/contract';
import { preflight } from './cors';
import { OPERATIONS, operations } from './operations';
import type { Operation } from './operation';

/** The bound operation of a route module's export, or undefined for anything apiRoute did not make. */
const operationOf = (value: unknown): Operation | null | undefined =>
  typeof value === 'function' && 'operation' in value ? (value as { operation: Operation | null }).operation : undefined;

describe('route files and operations', () => {
  it('bind every operation in exactly one route file, under its own path and method', () => {
    const bound = new Map<Operation, string[]>();
    for (const [path, module] of Object.entries(ROUTE_MODULES)) {
      for (const [name, value] of Object.entries(module)) {
        // a CORS preflight is not an operation: the publishable-key routes answer it (lib/api/cors.ts)
        if (name === 'OPTIONS') {
          expect(value, `OPTIONS ${path}`).toBe(preflight);
          continue;
        }
        expect(['GET', 'POST', 'PATCH', 'DELETE'], `${path} exports ${name}`).toContain(name);
        const op = operationOf(value);
        expect(op, `${name} ${path} is not bound to an operation (apiRoute(operations.…, handler))`).toBeTruthy();
        expect(OPERATIONS, `${name} ${path}`).toContain(op);
        expect(`${op!.method} ${op!.path}`, `${name} ${path} binds ${op!.operationId}`).toBe(`${name.toLowerCase()} ${path}`);
        bound.set(op!, [...(bound.get(op!) ?? []), `${name} ${path}`]);
      }
    }
    for (const op of OPERATIONS) expect(bound.get(op) ?? [], op.operationId).toHaveLength(1);
  });

  it('name each operation by its operationId, once', () => {
    for (const [id, op] of Object.entries(operations)) expect(op.operationId).toBe(id);
    const routes = OPERATIONS.map((op) => `${op.method} ${op.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it('leave the unknown-path answer without an operation (no role or scope to check)', () => {
    for (const handler of [unknownPath.GET, unknownPath.POST, unknownPath.PUT, unknownPath.PATCH, unknownPath.DELETE]) expect(operationOf(handler)).toBeNull();
  });
});
