import { z } from 'zod';
import { checkReadiness } from '../../domain/health/check-readiness.ts';
import { defineRoute } from '../../http/route.ts';

const livenessSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });
const readinessSchema = z
  .object({
    status: z.enum(['ready', 'unavailable']),
    checks: z.object({ postgres: z.enum(['up', 'down']), temporal: z.enum(['up', 'down']) }),
  })
  .meta({ id: 'Readiness' });

const tag = 'Operations';

export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/healthz',
    operationId: 'liveness',
    summary: 'The process is alive',
    tag,
    auth: 'none',
    responses: { 200: { description: 'Alive', schema: livenessSchema } },
    handler: async () => ({ status: 200, body: { status: 'ok' } }),
  }),
  defineRoute({
    method: 'get',
    path: '/readyz',
    operationId: 'readiness',
    summary: 'Postgres and Temporal are reachable',
    tag,
    auth: 'none',
    responses: {
      200: { description: 'Ready', schema: readinessSchema },
      503: { description: 'A dependency is down; the body names it', schema: readinessSchema },
    },
    handler: async (_input, { em, services }) => {
      const readiness = await checkReadiness(em, services.temporal.connection);
      return { status: readiness.status === 'ready' ? 200 : 503, body: readiness };
    },
  }),
];
