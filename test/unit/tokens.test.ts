import { describe, expect, it } from 'vitest';
import { constantTimeEqual, generateToken, sha256Hex } from '../../src/security/tokens.ts';

describe('tokens', () => {
  it('generates prefixed, unguessable tokens', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => generateToken('rpk_')));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(token).toMatch(/^rpk_[A-Za-z0-9_-]{43}$/);
  });

  it('compares secrets of any length', () => {
    expect(constantTimeEqual('secret', 'secret')).toBe(true);
    expect(constantTimeEqual('secret', 'secreT')).toBe(false);
    expect(constantTimeEqual('secret', 'secret-longer')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });

  it('hashes with SHA-256', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
