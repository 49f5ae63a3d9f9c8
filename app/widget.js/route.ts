import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let widget: { body: string; etag: string } | null = null;

function load() {
  // read once per process from the source file (lib/widget/widget.js): what is served is what is reviewed
  if (!widget) {
    const body = readFileSync(join(process.cwd(), 'lib', 'widget', 'widget.js'), 'utf8');
    widget = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  }
  return widget;
}

/** The form widget (docs/integrations.md): public, cacheable for an hour, loadable by any site's page. */
export function GET(request: Request): Response {
  const { body, etag } = load();
  const headers = {
    'Content-Type': 'text/javascript; charset=utf-8',
    'Cache-Control': 'public, max-age=3600, stale-while-revalidate=86400',
    ETag: etag,
    'Cross-Origin-Resource-Policy': 'cross-origin',
  };
  if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
  return new Response(body, { headers });
}
