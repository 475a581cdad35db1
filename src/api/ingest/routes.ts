import { z } from 'zod';
import { DomainError } from '../../domain/errors.ts';
import { ingestPost } from '../../domain/ingest/ingest-post.ts';
import { directEnvelopeSchema } from '../../domain/ingest/normalise/envelope.ts';
import { parseVerifiedJsonBody } from '../../http/body.ts';
import { defineRoute } from '../../http/route.ts';
import { ingestDeps } from '../request-deps.ts';

/** The spec's ingest body limit: larger bodies are refused (413) before they are read in full. */
export const ingestBodyLimit = 256 * 1024;

const acceptedSchema = z.object({ messageId: z.string(), eventId: z.string() }).meta({ id: 'IngestAccepted' });
const batchAcceptedSchema = z
  .object({ events: z.array(acceptedSchema.extend({ duplicate: z.boolean() })) })
  .meta({ id: 'IngestBatchAccepted' });

/** The Standard Webhooks headers a client signs with (docs/api.md, "Connections and ingest"); checked by the verifier. */
const signatureHeaders = z.object({
  'webhook-id': z.string().min(1).meta({ description: 'A unique id of this message, as signed.' }),
  'webhook-timestamp': z
    .string()
    .regex(/^\d+$/)
    .meta({ description: 'Unix seconds when it was signed; more than 5 minutes from now is 401 `timestamp_out_of_window`.' }),
  'webhook-signature': z.string().min(1).meta({
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` entries over `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the connection’s `whsec_` secret. One matching entry is enough (a rotated secret is accepted for 24 h).',
  }),
});

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(' ') : value);

export const ingestRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/in/:inboundKey',
    operationId: 'ingestEvent',
    summary: 'Post an event (or a provider batch), signed with the connection’s secret (Standard Webhooks)',
    tag: 'Ingest',
    auth: 'none',
    params: z.object({ inboundKey: z.string().min(1).max(100) }),
    body: directEnvelopeSchema,
    rawBody: true,
    documentedHeaders: signatureHeaders,
    bodyLimit: ingestBodyLimit,
    responses: {
      202: {
        description: 'Committed to the ingest outbox; processed by a batch run. A provider batch answers { events: [...] }',
        schema: z.union([acceptedSchema, batchAcceptedSchema]),
      },
      401: { description: 'Signature missing or invalid (`invalid_signature`), or timestamp out of the window (`timestamp_out_of_window`)' },
      403: { description: 'The connection is paused (`connection_paused`)' },
      404: { description: 'Unknown inbound key' },
      409: { description: 'This messageId was already accepted (`duplicate_message`); safe to treat as success' },
      413: { description: 'Body over 256 KB' },
      429: { description: 'Rate limited (`rate_limited`); wait Retry-After seconds' },
      503: { description: 'Postgres is out of reach; retry after Retry-After seconds (Temporal being down does not refuse events)' },
    },
    handler: async ({ params, readRaw }, ctx) => {
      const headers = ctx.request.headers;
      const outcome = await ingestPost(
        ingestDeps(ctx),
        {
          inboundKey: params.inboundKey,
          readBody: readRaw,
          parseBody: (raw) => parseVerifiedJsonBody(raw, header(headers['content-type'])),
          headers: { id: header(headers['webhook-id']), timestamp: header(headers['webhook-timestamp']), signature: header(headers['webhook-signature']) },
        },
      );
      if (outcome.kind === 'batch') {
        ctx.services.metrics.eventsAccepted(outcome.results.filter((result) => !result.duplicate).length);
        return { status: 202, body: { events: outcome.results } satisfies z.infer<typeof batchAcceptedSchema> };
      }
      const { messageId, eventId, duplicate } = outcome.result;
      if (duplicate) throw new DomainError('duplicate_message', `messageId ${messageId} was already accepted as ${eventId}`);
      ctx.services.metrics.eventsAccepted(1);
      return { status: 202, body: { messageId, eventId } };
    },
  }),
];
