'use client';

import { useEffect, useRef, useState } from 'react';
import 'swagger-ui-dist/swagger-ui.css';

type SwaggerUIBundle = (options: Record<string, unknown>) => unknown;

/**
 * Swagger UI from swagger-ui-dist, bundled with the app (no CDN: /docs works offline). Its prebuilt
 * bundle is used rather than swagger-ui-react, whose unbundled OpenAPI 3.1 resolver breaks under
 * Turbopack ("refract is not a function"). Loaded in the browser only.
 */
export function ApiReference({ spec }: { spec: Record<string, unknown> }) {
  const node = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    import('swagger-ui-dist/swagger-ui-es-bundle.js')
      .then((module) => {
        if (cancelled || !node.current) return;
        const SwaggerUI = ((module as { default?: SwaggerUIBundle }).default ?? module) as SwaggerUIBundle;
        SwaggerUI({
          domNode: node.current,
          spec,
          docExpansion: 'list',
          defaultModelsExpandDepth: 0,
          displayOperationId: true,
          deepLinking: true,
          tryItOutEnabled: false,
          // no badge from validator.swagger.io: nothing leaves this page
          validatorUrl: null,
        });
      })
      .catch((error: unknown) => setFailed(String(error)));
    return () => {
      cancelled = true;
    };
  }, [spec]);
  return (
    <div data-testid="api-reference">
      {failed ? <p className="p-4 text-sm text-red-700">The API reference could not load: {failed}. The document is at /v1/openapi.json.</p> : null}
      <div ref={node} />
    </div>
  );
}
