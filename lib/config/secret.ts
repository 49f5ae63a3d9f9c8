import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let cached: string | undefined;

/**
 * The session-signing secret: NEXTAUTH_SECRET when set, else one generated on first start and kept
 * in data/ (so a self-hosted install is never left with a published default).
 */
export function sessionSecret(): string {
  if (cached) return cached;
  if (process.env.NEXTAUTH_SECRET) return (cached = process.env.NEXTAUTH_SECRET);
  const file = join(process.cwd(), 'data', 'session-secret');
  try {
    cached = readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(join(process.cwd(), 'data'), { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    try {
      writeFileSync(file, secret, { flag: 'wx', mode: 0o600 });
    } catch {
      // Another process wrote it first: use theirs.
    }
    cached = readFileSync(file, 'utf8').trim();
  }
  return cached;
}
