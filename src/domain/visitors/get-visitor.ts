import type { EntityManager } from '@mikro-orm/postgresql';
import { Visitor } from '../../persistence/entities/visitor.ts';
import { notFound } from '../errors.ts';

export async function getVisitor(em: EntityManager, accountId: string, visitorId: string): Promise<Visitor> {
  const visitor = await em.findOne(Visitor, { id: visitorId, accountId });
  if (!visitor) throw notFound('Visitor');
  return visitor;
}
