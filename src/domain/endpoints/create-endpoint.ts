import type { EntityManager } from '@mikro-orm/postgresql';
import { Endpoint } from '../../persistence/entities/endpoint.ts';
import { newId } from '../../security/ids.ts';
import type { AllowList, Resolve } from '../../security/ip-policy.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { generateWebhookSecret } from '../../security/standard-webhooks.ts';
import { secretContexts } from '../secrets/secret-contexts.ts';
import type { EventType } from '../events/event-types.ts';
import { checkEndpointUrl } from './check-endpoint-url.ts';

export interface EndpointDeps {
  em: EntityManager;
  secrets: SecretBox;
  outbound: { allow: AllowList; resolve: Resolve };
}

export interface CreatedEndpoint {
  endpoint: Endpoint;
  /** Shown once; stored sealed. */
  secret: string;
}

export async function createEndpoint(
  deps: EndpointDeps,
  accountId: string,
  input: { url: string; eventTypes: EventType[]; description?: string | undefined },
): Promise<CreatedEndpoint> {
  const url = await checkEndpointUrl(input.url, deps.outbound);
  const secret = generateWebhookSecret();
  const id = newId('ep_');
  const endpoint = deps.em.create(Endpoint, {
    id,
    accountId,
    url,
    eventTypes: input.eventTypes,
    description: input.description ?? null,
    status: 'enabled',
    secretSealed: deps.secrets.seal(secret, secretContexts.endpointSigning(id)),
  });
  await deps.em.flush();
  return { endpoint, secret };
}
