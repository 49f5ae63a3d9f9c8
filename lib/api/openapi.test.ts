import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { GET } from '@/app/v1/openapi.json/route';
import { ROUTE_MODULES } from '@/test/api/contract';
import { ERROR_STATUS } from '../errors/app-error';
import { buildOpenApi, OPERATIONS } from './openapi';
import type * as res from './responses';
import type { singleResult, verifyResult } from '../checks/shape';
import type { Reason, RiskLevel, VerdictStatus } from '../verifier/types';
import type { ApiKeyInfo } from '../accounts/keys';
import type { AnswerOf } from './answer';
import type { operations } from './operations';

const root = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'ev-openapi-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every app/v1 route file as the path template the document uses (`[jobId]` → `{jobId}`), with its methods. */
function routeFiles(dir = join(root, 'app', 'v1')): { path: string; methods: string[] }[] {
  const found: { path: string; methods: string[] }[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) found.push(...routeFiles(full));
    else if (name === 'route.ts') {
      const path = `/${relative(join(root, 'app'), dir).replace(/\[(\w+)\]/g, '{$1}')}`;
      const methods = [...readFileSync(full, 'utf8').matchAll(/export (?:const|async function|function) (GET|POST|DELETE|PUT|PATCH)\b/g)].map((m) =>
        m[1]!.toLowerCase(),
      );
      found.push({ path, methods });
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  const doc = buildOpenApi() as any;

  it('passes redocly lint (recommended rules) without a warning', () => {
    const file = join(work, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const cli = join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    // Telemetry and the update check are off: lint reads the file and the config, nothing else.
    const run = spawnSync(process.execPath, [cli, 'lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'stylish'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 60_000,
    });
    const output = run.stdout + run.stderr;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/valid/);
    expect(output, output).not.toMatch(/warning/i);
  }, 60_000);

  it('has every /v1 route file and method, and nothing else (the unknown-path catch-all aside)', () => {
    const routes = routeFiles().filter((r) => !r.path.includes('[...path]'));
    const inRoutes = routes.flatMap((r) => r.methods.map((m) => `${m} ${r.path}`)).sort();
    const inDoc = OPERATIONS.map((op) => `${op.method} ${op.path}`).sort();
    expect(inDoc).toEqual(inRoutes);
    // and the harness's list, through which every API test response is validated
    expect(Object.keys(ROUTE_MODULES).sort()).toEqual(routes.map((r) => r.path).sort());
  });

  it('gives every authenticated operation the headers and error answers every call can get', () => {
    for (const op of OPERATIONS.filter((o) => o.scope !== 'public')) {
      const operation = doc.paths[op.path][op.method];
      for (const status of ['401', '429', '500']) expect(operation.responses[status], `${op.method} ${op.path} ${status}`).toBeDefined();
      const ok = operation.responses[String(op.ok[0])];
      expect(Object.keys(ok.headers), op.path).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/Sandbox' });
      if (op.method === 'post') expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    }
    expect(doc.components.responses.RateLimited.headers['Retry-After']).toBeDefined();
    expect([...doc.components.schemas.ErrorCode.enum].sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      'bulk.completed',
      'bulk.failed',
      'list.changed',
      'list.expiring',
      'quota.exceeded',
      'quota.warning',
      'webhook.test',
    ]);
  });

  it('takes request schemas from the zod schemas the routes validate with', () => {
    const history = doc.paths['/v1/history'].get.parameters.find((p: any) => p.name === 'limit');
    expect(history).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } });
    expect(doc.components.schemas.WebhookRequest).toMatchObject({ required: ['url'], properties: { url: { format: 'uri', maxLength: 2048 } } });
    expect(doc.components.schemas.BulkRequest.properties.columns).toMatchObject({ type: 'array', maxItems: 1000 });
  });

  it('is served at GET /v1/openapi.json without a key', async () => {
    const response = GET();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(doc)));
  });
});

// Checked by `tsc --noEmit`: the code's own types and the contract's schemas say the same thing.
describe('the response schemas and the code', () => {
  it('share the verdict vocabulary and the shapes built in code', () => {
    expectTypeOf<z.infer<typeof res.reason>>().toEqualTypeOf<Reason>();
    expectTypeOf<z.infer<typeof res.riskLevel>>().toEqualTypeOf<RiskLevel>();
    expectTypeOf<z.infer<typeof res.verdictStatus>>().toEqualTypeOf<VerdictStatus>();
    // the domain values the answers are shaped from (lib/api/shape.ts)
    expectTypeOf<ReturnType<typeof singleResult>>().toMatchTypeOf<AnswerOf<typeof operations.verifySingle>>();
    expectTypeOf<ReturnType<typeof verifyResult>>().toMatchTypeOf<AnswerOf<typeof operations.verify>>();
    expectTypeOf<ApiKeyInfo>().toMatchTypeOf<AnswerOf<typeof operations.updateKey>>();
  });
});
