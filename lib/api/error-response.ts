import { AppError } from '../errors/app-error';

/** The one error envelope: an `AppError` as itself, anything else as a logged 500 with a generic message. */
export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const appError = error instanceof AppError ? error : new AppError('server_error', 'Something went wrong on our side. Please try again.');
  if (!(error instanceof AppError)) console.error('[api] unexpected error', headers['X-Request-Id'] ?? '', error);
  return Response.json(
    { error: appError.code, message: appError.message, ...appError.extra },
    { status: appError.status, headers: { ...headers, ...appError.headers } },
  );
}
