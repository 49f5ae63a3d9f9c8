import { it, expect } from 'vitest';
import pg from 'pg';
import { startPrivatePostgres } from './postgres';
it('restarts', async () => {
  const server = await startPrivatePostgres();
  const url = await server.database();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  expect((await c.query('select 1 as x')).rows[0].x).toBe(1);
  c.on('error', () => {});
  await server.restart();
  await expect(c.query('select 1')).rejects.toThrow();
  const d = new pg.Client({ connectionString: url });
  await d.connect();
  expect((await d.query('select 2 as x')).rows[0].x).toBe(2);
  await d.end();
  await server.close();
}, 60000);
