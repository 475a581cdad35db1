import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';

// A new row is made at one instant: its updatedAt must equal its createdAt, or an API answer shows a record changed a
// millisecond after it was created (test/api/segments.test.ts once saw exactly that in CI).

let orm: Orm;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 1);
});
afterAll(() => orm?.close());

describe("a new row's timestamps", () => {
  it('start updatedAt at the instant of createdAt, in every entity that has both', () => {
    const withBoth = [...orm.getMetadata().getAll().values()].filter((meta) => meta.properties.createdAt && meta.properties.updatedAt);
    expect(withBoth.map((meta) => meta.className)).toEqual(expect.arrayContaining(['Segment', 'Job', 'Device']));
    const createdAt = new Date('2026-01-01T00:00:00.000Z');
    for (const meta of withBoth) {
      const order = meta.props.map((prop) => prop.name);
      // MikroORM fills properties in declaration order, so updatedAt can read a createdAt only declared before it.
      expect(order.indexOf('createdAt'), meta.className).toBeLessThan(order.indexOf('updatedAt'));
      expect(meta.properties.updatedAt!.onCreate?.({ createdAt }, orm.em), meta.className).toBe(createdAt);
    }
  });
});
