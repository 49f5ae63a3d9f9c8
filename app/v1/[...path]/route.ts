import { AppError } from '@/lib/errors/app-error';
import { unknownPathRoute } from '@/lib/api/route';

/** Unknown /v1 paths: authenticated and answered like every /v1 call, in the error envelope. */
const notFound = unknownPathRoute(async () => {
  throw new AppError('not_found', 'No such endpoint. See the API reference at /docs (the document: /v1/openapi.json).');
});

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
