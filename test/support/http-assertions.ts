import { expect } from 'vitest';
import type { ApiResponse } from './api.ts';

// Assertions on the service's HTTP answers, for every black-box test.

/** Asserts the status and returns the body; the message shows the body when the status is wrong. */
export function ok<T = any>(response: ApiResponse<T>, status = 200): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body;
}

/** Asserts the one error body: `{ error: { code, message, requestId, details? } }`, with the requestId echoed. */
export function expectError(response: ApiResponse, status: number, code: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toEqual({
    error: {
      code,
      message: expect.any(String),
      requestId: response.headers.get('x-request-id'),
      ...(response.body?.error?.details ? { details: expect.any(Array) } : {}),
    },
  });
  expect(response.body.error.message.length).toBeGreaterThan(0);
  return response.body.error as { code: string; message: string; requestId: string; details?: Array<{ path: string; message: string }> };
}
