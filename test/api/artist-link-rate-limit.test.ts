import { describe, expect, it } from 'vitest';
import { linkRateLimits } from '../../src/http/rate-limit.ts';
import { call, newAccount } from '../support/api.ts';
import { ok } from '../support/http-assertions.ts';
import { newJob } from '../support/jobs.ts';

// An artist's link's routes take no credentials: they are limited per link (and per address), black box. Every
// request of the suite comes from 127.0.0.1, so this file runs alone (vitest.config.ts, timingFiles) and sends no
// more than the per-address allowance holds.

const { perToken, perAddress } = linkRateLimits;

describe('the artist’s link routes’ rate limit', () => {
  it('refuses a link pressed too hard with 429 rate_limited, Retry-After and the headers, and leaves other links open', async () => {
    const account = await newAccount();
    const tokenOf = async (title: string) => {
      const job = await newJob(account, { title });
      const { artistLink } = ok(await call('POST', `/job/executeJob?id=${job.id}`, { token: account.apiKey }));
      return artistLink.url.slice(artistLink.url.lastIndexOf('/') + 1) as string;
    };
    const pressed = await tokenOf('Pressed');
    const other = await tokenOf('Other');

    // Within any 10 s, a link may be answered at most perSecond × 11 (the seconds the window touches) + burst times.
    // More than that, sent within 10 s, cannot all be answered; fewer than the address's burst, so only the link's
    // limit can refuse them.
    const requests = perToken.perSecond * 11 + perToken.burst + 20;
    expect(requests).toBeLessThan(perAddress.burst);
    const answers = [];
    for (let sent = 0; sent < requests; sent += 20) {
      answers.push(...(await Promise.all(Array.from({ length: 20 }, () => call('GET', `/artist/${pressed}/job`)))));
    }
    const refused = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status !== 429).every((answer) => answer.status === 200)).toBe(true);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('for this link') });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get('ratelimit-limit')).toBe(String(perToken.perSecond));
    }

    // Another link, from the same address, is not held back by the first one's count.
    expect(ok(await call('GET', `/artist/${other}/job`)).title).toBe('Other');
  });
});
