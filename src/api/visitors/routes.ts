import { z } from 'zod';
import { getVisitor } from '../../domain/visitors/get-visitor.ts';
import { linkVisitor } from '../../domain/visitors/link-visitor.ts';
import { emailSchema, phoneSchema } from '../../domain/ingest/normalise/envelope.ts';
import { defineRoute } from '../../http/route.ts';
import type { Visitor } from '../../persistence/entities/visitor.ts';
import { accountIdParam, timestamp } from '../shared-schemas.ts';

const linkVisitorBody = z
  .strictObject({
    clientUserId: z.string().min(1).max(255),
    attributes: z.record(z.string(), z.unknown()).optional(),
    endpoints: z.strictObject({ email: emailSchema.optional(), phone: phoneSchema.optional() }).optional(),
  })
  .meta({ id: 'LinkVisitor' });

const visitorSchema = z
  .object({
    visitorId: z.uuid(),
    accountId: z.uuid(),
    clientUserId: z.string(),
    attributes: z.record(z.string(), z.unknown()),
    endpoints: z.object({ email: z.string().nullable(), phone: z.string().nullable() }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Visitor' });

const toVisitorResponse = (visitor: Visitor): z.infer<typeof visitorSchema> => ({
  visitorId: visitor.id,
  accountId: visitor.accountId,
  clientUserId: visitor.clientUserId,
  attributes: visitor.attributes,
  endpoints: { email: visitor.email ?? null, phone: visitor.phone ?? null },
  createdAt: visitor.createdAt.toISOString(),
  updatedAt: visitor.updatedAt.toISOString(),
});

const tag = 'Visitors';

export const visitorRoutes = [
  defineRoute({
    method: 'post',
    path: '/accounts/:accountId/visitors',
    operationId: 'linkVisitor',
    summary: 'Create or update the visitor with this clientUserId; events held for it are released',
    tag,
    auth: 'account',
    params: accountIdParam,
    body: linkVisitorBody,
    responses: {
      201: { description: 'A new visitor', schema: visitorSchema.extend({ releasedEvents: z.number().int() }) },
      200: { description: 'The existing visitor, updated (attributes merged)', schema: visitorSchema.extend({ releasedEvents: z.number().int() }) },
    },
    handler: async ({ body }, { em, services, account }) => {
      const { visitor, created, released } = await linkVisitor({ em, temporal: services.temporal }, account.id, body.clientUserId, {
        attributes: body.attributes,
        email: body.endpoints?.email,
        phone: body.endpoints?.phone,
      });
      return { status: created ? 201 : 200, body: { ...toVisitorResponse(visitor), releasedEvents: released } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/accounts/:accountId/visitors/:visitorId',
    operationId: 'getVisitor',
    summary: 'Get one visitor',
    tag,
    auth: 'account',
    params: z.object({ accountId: z.uuid(), visitorId: z.uuid() }),
    responses: { 200: { description: 'The visitor', schema: visitorSchema }, 404: { description: 'No such visitor in this account' } },
    handler: async ({ params }, { em, account }) => ({ status: 200, body: toVisitorResponse(await getVisitor(em, account.id, params.visitorId)) }),
  }),
];
