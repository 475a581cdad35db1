import { describe, expect, it } from 'vitest';
import { basicAuthorization, buildSpecRequest, specCallProblem, type SpecCallInput } from '../../src/outbound/providers/segment-api.ts';

const library = { name: 'richpush', version: '9.9.9' };
const writeKey = 'wk_9fQ2xLz';
const base = { messageId: 'run-1:node-7', timestamp: '2026-11-23T12:00:00.000Z' };

describe('Segment tracking API requests', () => {
  it('builds a track call for a known user: path, Basic auth, JSON body', () => {
    const request = buildSpecRequest('https://api.segment.io', writeKey, { ...base, call: 'track', event: 'Order Completed', properties: { total: 42, items: ['a'] }, userId: 'u-1' }, library);
    expect(request.url).toBe('https://api.segment.io/v1/track');
    expect(request.headers).toEqual({ 'content-type': 'application/json', authorization: `Basic ${Buffer.from('wk_9fQ2xLz:').toString('base64')}` });
    expect(JSON.parse(request.body)).toEqual({
      userId: 'u-1',
      event: 'Order Completed',
      properties: { total: 42, items: ['a'] },
      timestamp: '2026-11-23T12:00:00.000Z',
      messageId: 'run-1:node-7',
      context: { library: { name: 'richpush', version: '9.9.9' } },
    });
  });

  it('builds an identify call for an anonymous visitor, with traits instead of event and properties', () => {
    const request = buildSpecRequest('https://api.segment.io', writeKey, { ...base, call: 'identify', event: 'ignored', properties: { plan: 'pro' }, anonymousId: 'anon-5' }, library);
    expect(request.url).toBe('https://api.segment.io/v1/identify');
    expect(JSON.parse(request.body)).toEqual({
      anonymousId: 'anon-5',
      traits: { plan: 'pro' },
      timestamp: base.timestamp,
      messageId: base.messageId,
      context: { library },
    });
  });

  it('sends both ids when both are known, and only the one given otherwise', () => {
    const body = (ids: Partial<SpecCallInput>) => JSON.parse(buildSpecRequest('https://x.test', writeKey, { ...base, call: 'track', event: 'e', properties: {}, ...ids }, library).body);
    expect(body({ userId: 'u', anonymousId: 'a' })).toMatchObject({ userId: 'u', anonymousId: 'a' });
    expect(body({ userId: 'u' })).not.toHaveProperty('anonymousId');
    expect(body({ anonymousId: 'a' })).not.toHaveProperty('userId');
  });

  it('appends the call to a base URL with a path (a RudderStack data plane), with or without a trailing slash', () => {
    const input: SpecCallInput = { ...base, call: 'track', event: 'e', properties: {}, userId: 'u' };
    expect(buildSpecRequest('https://dp.example.com/rudder', writeKey, input, library).url).toBe('https://dp.example.com/rudder/v1/track');
    expect(buildSpecRequest('https://dp.example.com/rudder/', writeKey, input, library).url).toBe('https://dp.example.com/rudder/v1/track');
    expect(buildSpecRequest('https://dp.example.com:8443/', writeKey, { ...input, call: 'identify' }, library).url).toBe('https://dp.example.com:8443/v1/identify');
  });

  it('encodes the write key as the Basic user name with an empty password', () => {
    const header = basicAuthorization('key:with:colons/é');
    expect(header.startsWith('Basic ')).toBe(true);
    expect(Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8')).toBe('key:with:colons/é:');
    expect(basicAuthorization('abc')).toBe('Basic YWJjOg==');
  });

  it('names what the provider would refuse before anything is sent', () => {
    const track: SpecCallInput = { ...base, call: 'track', event: 'e', properties: {}, userId: 'u' };
    expect(specCallProblem(track)).toBeUndefined();
    expect(specCallProblem({ ...track, call: 'identify', event: undefined })).toBeUndefined();
    expect(specCallProblem({ ...track, userId: undefined })).toMatch(/userId or an anonymousId/);
    expect(specCallProblem({ ...track, userId: '' })).toMatch(/userId or an anonymousId/);
    expect(specCallProblem({ ...track, event: undefined })).toMatch(/event name/);
    expect(specCallProblem({ ...track, event: '' })).toMatch(/event name/);
    expect(specCallProblem({ ...track, messageId: '' })).toMatch(/messageId/);
  });
});
