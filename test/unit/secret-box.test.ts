import { describe, expect, it } from 'vitest';
import { createSecretBox, generateSecretsKey } from '../../src/security/secret-box.ts';
import { sealLegacy } from '../support/legacy-seal.ts';

const key = generateSecretsKey();
const box = createSecretBox(key);

describe('secret box', () => {
  it('opens a sealed secret for the context it was sealed for', () => {
    const sealed = box.seal('whsec_abc', 'endpoint:ep_1:signing');
    expect(sealed).toMatch(/^v2\./);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed, 'endpoint:ep_1:signing')).toBe('whsec_abc');
  });

  it("refuses to open one row's secret for another row or another kind of secret", () => {
    const sealed = box.seal('whsec_abc', 'endpoint:ep_1:signing');
    expect(() => box.open(sealed, 'endpoint:ep_2:signing')).toThrow('does not open for endpoint:ep_2:signing');
    expect(() => box.open(sealed, 'connection:ep_1:signing')).toThrow('does not open');
  });

  it('refuses a changed value and another key', () => {
    const sealed = box.seal('whsec_abc', 'c');
    const [version, iv, tag, ciphertext] = sealed.split('.');
    const flipped = Buffer.from(ciphertext!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => box.open([version, iv, tag, flipped.toString('base64url')].join('.'), 'c')).toThrow('does not open');
    expect(() => createSecretBox(generateSecretsKey()).open(sealed, 'c')).toThrow('does not open');
    expect(() => box.open('whsec_plain', 'c')).toThrow('not a sealed secret');
  });

  it('still opens a secret stored before contexts (v1), for any context', () => {
    const legacy = sealLegacy(key, 'whsec_old');
    expect(box.open(legacy, 'endpoint:ep_1:signing')).toBe('whsec_old');
    expect(box.open(legacy, 'connection:conn_9:signing')).toBe('whsec_old');
  });
});
