// Prints the OpenAPI document (the same one GET /v1/openapi.json serves): npm run -s openapi > openapi.json
import { buildOpenApi } from '../lib/api/openapi';

process.stdout.write(`${JSON.stringify(buildOpenApi(), null, 2)}\n`);
