import { describe, expect, it } from 'vitest';
import { shardSendIds } from '../../src/domain/campaigns/campaign-shard-source.ts';
import { derivedUuid, isUuid } from '../../src/security/ids.ts';

describe('derived send ids', () => {
  it('derives the same version 8 UUID from the same parts, and another from other parts', () => {
    const id = derivedUuid('notification', 'shard', '0');
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('8');
    expect('89ab').toContain(id[19]);
    expect(derivedUuid('notification', 'shard', '0')).toBe(id);
    expect(derivedUuid('notification', 'shard', '1')).not.toBe(id);
    // The parts are kept apart: ('ab', 'c') is not ('a', 'bc').
    expect(derivedUuid('ab', 'c')).not.toBe(derivedUuid('a', 'bc'));
  });

  it('gives each device of a shard its own UUID, the shard\'s with the position in the last eight hex digits', () => {
    const base = derivedUuid('notification', 'shard', '3');
    const shard = shardSendIds('notification', 3);
    const ids = [0, 1, 255, 24_999, 0xffffffff].map((position) => shard.of(position));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id.slice(0, 28)).toBe(base.slice(0, 28));
    }
    expect(ids[2]!.slice(-8)).toBe('000000ff');
    expect(shardSendIds('notification', 4).of(0)).not.toBe(ids[0]);
  });
});
