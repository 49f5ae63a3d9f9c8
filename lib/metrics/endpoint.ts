import { createHash, timingSafeEqual } from 'node:crypto';
import { env } from '../config/env';
import { AppError, notFound } from '../errors/app-error';
import { metrics } from './registry';

/**
 * GET /metrics (the web server) and the worker's EV_METRICS_PORT: the Prometheus text, only to a
 * caller presenting `Authorization: Bearer <EV_METRICS_TOKEN>`. Without the variable there is no
 * endpoint (404): the figures name providers, egress addresses and the queue's depth.
 */
export async function scrapeMetrics(authorization: string | null): Promise<{ body: string; contentType: string }> {
  const token = env().EV_METRICS_TOKEN;
  if (!token) throw notFound('Metrics endpoint');
  const given = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '')?.[1] ?? '';
  if (!sameSecret(given, token)) {
    throw new AppError('authentication_error', 'Send Authorization: Bearer <EV_METRICS_TOKEN>.', {}, { 'WWW-Authenticate': 'Bearer' });
  }
  const { registry } = metrics();
  return { body: await registry.metrics(), contentType: registry.contentType };
}

/** Compared in constant time (over digests, so the lengths do not show either). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
