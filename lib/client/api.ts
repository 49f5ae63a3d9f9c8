import { isSandbox } from './sandbox';

/** The API's error envelope {error, message}, thrown. */
export class ApiError extends Error {
  constructor(readonly code: string, readonly status: number, message: string) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | null | undefined>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** One call to the same-origin /v1 API with the session cookie, in the mode the header switch is in. */
export async function api<T>(path: string, init: { method?: string; body?: unknown; query?: Query } = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  if (isSandbox()) headers['X-EV-Sandbox'] = 'true';
  let response: Response;
  try {
    response = await fetch(withQuery(path, init.query), {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError('network_error', 0, 'Could not reach the server. Check your connection.');
  }
  const text = await response.text();
  let payload: unknown = null;
  try {
    payload = text ? JSON.parse(text) : null;
  } catch {
    payload = null;
  }
  if (!response.ok) {
    const envelope = (payload ?? {}) as { error?: string; message?: string };
    throw new ApiError(envelope.error ?? 'server_error', response.status, envelope.message ?? `Request failed (${response.status}).`);
  }
  return payload as T;
}
