import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.d.ts';

/** A record as the API answers it, by its schema's name in the OpenAPI document: `Schema<'Notification'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/**
 * The one client of the public API, typed from its OpenAPI document. It sends the session cookie (same origin
 * only) and `X-Console: 1`, which the API requires of every cookie-carried change (docs/console.md, "Sign-in and
 * CSRF"). There is no other way to the service: no private endpoint exists for the console.
 */
export const api = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  headers: { 'X-Console': '1' },
});

/** An answer other than 2xx, with the API's stable error code. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;

  constructor(status: number, code: string, message: string, requestId?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.requestId = requestId;
  }
}

/** What openapi-fetch answers: `data` on a 2xx, `error` (the error body) otherwise. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

const errorOf = (error: unknown) => (error as { error?: { code?: string; message?: string; requestId?: string } } | undefined)?.error;

/** The answer's data, or an ApiError carrying its status and code: what TanStack Query's functions return or throw. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const body = errorOf(error);
  throw new ApiError(response.status, body?.code ?? 'unknown', body?.message ?? `${response.status} ${response.statusText}`, body?.requestId);
}

export const isUnauthorized = (error: unknown) => error instanceof ApiError && error.status === 401;
