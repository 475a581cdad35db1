import { describe, expect, it } from 'vitest';
import { matchesEntityTag, parseRangeHeader } from '../../src/http/byte-ranges.ts';
import { recordingSignature, recordingSignatureMatches, recordingUrl, recordingUrlKey } from '../../src/security/recording-urls.ts';
import { generateSecretsKey } from '../../src/security/secret-box.ts';

describe('recording URLs', () => {
  const key = recordingUrlKey(generateSecretsKey());

  it('are the same for the same file, and differ by file and by SECRETS_KEY', () => {
    const url = recordingUrl('https://push.example.com/', key, 'fil_AAAAAAAAAAAAAAAAAAAAAA');
    expect(url).toMatch(/^https:\/\/push\.example\.com\/recordings\/fil_A{22}\/[A-Za-z0-9_-]{32}\.m4a$/);
    expect(recordingUrl('https://push.example.com', key, 'fil_AAAAAAAAAAAAAAAAAAAAAA')).toBe(url);
    expect(recordingSignature(key, 'fil_AAAAAAAAAAAAAAAAAAAAAB')).not.toBe(recordingSignature(key, 'fil_AAAAAAAAAAAAAAAAAAAAAA'));
    expect(recordingSignature(recordingUrlKey(generateSecretsKey()), 'fil_AAAAAAAAAAAAAAAAAAAAAA')).not.toBe(recordingSignature(key, 'fil_AAAAAAAAAAAAAAAAAAAAAA'));
    // A path prefix of PUBLIC_URL is kept.
    expect(recordingUrl('https://example.com/push/', key, 'fil_x')).toMatch(/^https:\/\/example\.com\/push\/recordings\/fil_x\//);
  });

  it('verify a signature only for its own file', () => {
    const signature = recordingSignature(key, 'fil_one');
    expect(recordingSignatureMatches(key, 'fil_one', signature)).toBe(true);
    expect(recordingSignatureMatches(key, 'fil_two', signature)).toBe(false);
    expect(recordingSignatureMatches(key, 'fil_one', signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A'))).toBe(false);
  });
});

describe('Range and If-None-Match headers', () => {
  it.each([
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=100-', { start: 100, end: undefined }],
    ['bytes=-500', { suffixLength: 500 }],
    [' bytes=5-5 ', { start: 5, end: 5 }],
  ])('reads %s', (header, range) => expect(parseRangeHeader(header)).toEqual(range));

  it.each([undefined, '', 'bytes=', 'bytes=-', 'bytes=9-3', 'bytes=0-1,5-6', 'items=0-1', 'bytes=a-b', `bytes=-${'9'.repeat(30)}`, `bytes=${'9'.repeat(30)}-`])(
    'ignores %j (the whole file is answered)',
    (header) => expect(parseRangeHeader(header)).toBeUndefined(),
  );

  it('compares entity tags weakly, in a list, and takes *', () => {
    expect(matchesEntityTag('"abc"', '"abc"')).toBe(true);
    expect(matchesEntityTag('W/"abc"', '"abc"')).toBe(true);
    expect(matchesEntityTag('"x", "abc"', '"abc"')).toBe(true);
    expect(matchesEntityTag('*', '"abc"')).toBe(true);
    expect(matchesEntityTag('"abd"', '"abc"')).toBe(false);
    expect(matchesEntityTag(undefined, '"abc"')).toBe(false);
  });
});
