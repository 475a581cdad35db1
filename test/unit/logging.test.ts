import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { accessLog, loggedPath } from '../../src/http/access-log.ts';
import { createLogger } from '../../src/logger.ts';

/** A logger at `info` whose lines are kept, parsed, in `lines`. */
function capturedLogger() {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger('info', 'test', sink), lines };
}

describe('log redaction', () => {
  it('redacts credentials passed by mistake, at the top, one level down and in an HTTP error’s headers', () => {
    const { logger, lines } = capturedLogger();
    const error = Object.assign(new Error('request failed'), { config: { headers: { Authorization: 'Bearer abc', accept: 'application/json' } } });
    logger.warn(
      {
        signingSecret: 'whsec_top',
        connection: { id: 'conn_1', signingSecret: 'whsec_nested', outboundCredential: 'wk_1', writeKey: 'wk_2' },
        settings: { databaseUrl: 'postgres://u:pw@db/x', secretsKey: 'k', adminToken: 'adm_1' },
        headers: { Authorization: 'Bearer def', 'content-type': 'text/plain' },
        err: error,
      },
      'something failed',
    );
    const [line] = lines;
    const text = JSON.stringify(line);
    for (const secret of ['whsec_top', 'whsec_nested', 'wk_1', 'wk_2', 'pw@db', '"k"', 'adm_1', 'Bearer abc', 'Bearer def']) expect(text).not.toContain(secret);
    expect(line!.connection).toMatchObject({ id: 'conn_1', signingSecret: '[redacted]' });
    expect(line!.headers).toEqual({ Authorization: '[redacted]', 'content-type': 'text/plain' });
    expect(line!.err.config.headers).toEqual({ Authorization: '[redacted]', accept: 'application/json' });
  });
});

describe('access log', () => {
  it('keeps a path’s ids but not an inbound key or an artist’s token', async () => {
    expect(loggedPath('/v1/in/in_AbC123')).toBe('/v1/in/[redacted]');
    expect(loggedPath('/v1/in/in_AbC123/extra')).toBe('/v1/in/[redacted]/extra');
    expect(loggedPath('/artist/art_AbC123/job')).toBe('/artist/[redacted]/job');
    expect(loggedPath('/artist/art_AbC123/takes/3f1c')).toBe('/artist/[redacted]/takes/3f1c');
    expect(loggedPath('/accounts/3f1c/endpoints/ep_1')).toBe('/accounts/3f1c/endpoints/ep_1');

    const { logger, lines } = capturedLogger();
    const ctx = { method: 'POST', path: '/v1/in/in_secretKey', status: 202, state: { requestId: 'r-1' } } as never;
    await accessLog(logger)(ctx, async () => undefined);
    expect(lines).toEqual([expect.objectContaining({ msg: 'request', path: '/v1/in/[redacted]', status: 202, requestId: 'r-1' })]);
    expect(JSON.stringify(lines)).not.toContain('in_secretKey');
  });
});
