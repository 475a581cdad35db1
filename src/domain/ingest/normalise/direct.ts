import type { z } from 'zod';
import { formatDetailPath, withoutLooserBounds, type ErrorDetail } from '../../errors.ts';
import { directEnvelopeSchema, type InboundEnvelope, type NormaliseResult } from './envelope.ts';
import { applyAttributeMapping, assignOwn, nonEmpty, type JsonObject } from './fields.ts';

// The direct provider sends our own envelope, so this is validation plus the one rewrite the envelope promises:
// occurredAt in UTC.

export function normaliseDirect(body: unknown, mapping: Record<string, string>): NormaliseResult {
  const parsed = directEnvelopeSchema.safeParse(body);
  if (!parsed.success) return { ok: false, details: withoutLooserBounds(parsed.error.issues).flatMap(toDetails) };

  const { attributes: sent, ...envelope } = parsed.data;
  const attributes: JsonObject = {};
  assignOwn(attributes, sent);
  // The mapping reads the envelope as sent, so "$.raw.order.id" and "$.attributes.plan" both work.
  applyAttributeMapping(attributes, body, mapping);
  // An empty attributes object the sender chose to send is kept: the output is their envelope, not a rewrite of it.
  const event: InboundEnvelope = { ...envelope, ...(sent !== undefined ? { attributes } : nonEmpty('attributes', attributes)) };
  return { ok: true, events: [event] };
}

function toDetails(issue: z.core.$ZodIssue): ErrorDetail[] {
  const at = formatDetailPath('body', issue.path);
  // Zod reports every unknown key in one issue at the object; one detail per key tells the sender what to remove.
  if (issue.code === 'unrecognized_keys') {
    const message = issue.path.length === 0 ? 'is not a field of the version 1 envelope' : 'is not a known field';
    return issue.keys.map((key) => ({ path: formatDetailPath(at, [key]), message }));
  }
  if (issue.code === 'invalid_type' && issue.path.length === 0) return [{ path: at, message: 'must be a JSON object' }];
  return [{ path: at, message: issue.message }];
}
