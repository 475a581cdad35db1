import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const abTestArms = ['A', 'B', 'remainder'] as const;
export type AbTestArm = (typeof abTestArms)[number];

/** The audience of a test as it was at playTime: each device and its arm, written once, in one statement. */
export const AbTestMember = defineEntity({
  name: 'AbTestMember',
  tableName: 'ab_test_members',
  properties: {
    abTestId: p.uuid().primary().fieldName('ab_test_id'),
    deviceId: p.uuid().primary().fieldName('device_id'),
    arm: p.enum(abTestArms),
  },
  indexes: [{ properties: ['abTestId', 'arm', 'deviceId'] }],
});

export type AbTestMember = InferEntity<typeof AbTestMember>;
