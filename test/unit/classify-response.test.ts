import { describe, expect, it } from 'vitest';
import { classifyResponse, parseRetryAfter } from '../../src/domain/deliveries/classify-response.ts';

const now = Date.parse('2026-11-23T12:00:00.000Z');

describe('classifyResponse', () => {
  it.each([
    // status, Retry-After, verdict
    [200, undefined, { kind: 'delivered' }],
    [201, undefined, { kind: 'delivered' }],
    [204, undefined, { kind: 'delivered' }],
    [299, undefined, { kind: 'delivered' }],
    [410, undefined, { kind: 'gone' }],
    [410, '30', { kind: 'gone' }],
    [429, undefined, { kind: 'retry' }],
    [429, '30', { kind: 'retry', afterMs: 30_000 }],
    [429, '0', { kind: 'retry', afterMs: 0 }],
    [503, '120', { kind: 'retry', afterMs: 120_000 }],
    [503, 'Mon, 23 Nov 2026 12:01:00 GMT', { kind: 'retry', afterMs: 60_000 }],
    [503, 'soon', { kind: 'retry' }],
    [500, '30', { kind: 'retry' }],
    [502, undefined, { kind: 'retry' }],
    [504, undefined, { kind: 'retry' }],
    [599, undefined, { kind: 'retry' }],
    [408, undefined, { kind: 'retry' }],
    [400, undefined, { kind: 'rejected' }],
    [401, undefined, { kind: 'rejected' }],
    [403, undefined, { kind: 'rejected' }],
    [404, undefined, { kind: 'rejected' }],
    [409, undefined, { kind: 'rejected' }],
    [413, undefined, { kind: 'rejected' }],
    [422, undefined, { kind: 'rejected' }],
    [301, undefined, { kind: 'rejected' }],
    [302, undefined, { kind: 'rejected' }],
    [307, undefined, { kind: 'rejected' }],
    [100, undefined, { kind: 'rejected' }],
  ] as const)('%i with Retry-After %s is %o', (status, retryAfter, verdict) => {
    expect(classifyResponse(status, retryAfter, now)).toEqual(verdict);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['  45 ', 45_000],
    ['1.5', undefined],
    ['-3', undefined],
    ['Mon, 23 Nov 2026 11:59:00 GMT', 0],
    ['Mon, 23 Nov 2026 12:00:10 GMT', 10_000],
    // Capped at 10 hours, the longest the retry schedule itself waits.
    ['86400', 10 * 3600 * 1000],
  ] as const)('%j is %o ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
