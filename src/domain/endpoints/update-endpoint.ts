import type { EndpointStatus } from '../../persistence/entities/endpoint.ts';
import type { Endpoint } from '../../persistence/entities/endpoint.ts';
import type { EventType } from '../events/event-types.ts';
import { checkEndpointUrl } from './check-endpoint-url.ts';
import type { EndpointDeps } from './create-endpoint.ts';
import { findOwnedEndpoint } from './find-owned-endpoint.ts';

export interface EndpointChanges {
  url?: string | undefined;
  eventTypes?: EventType[] | undefined;
  description?: string | null | undefined;
  status?: EndpointStatus | undefined;
}

/** Changes an endpoint. Enabling it again clears the failure streak that may have disabled it. */
export async function updateEndpoint(deps: EndpointDeps, accountId: string, endpointId: string, changes: EndpointChanges): Promise<Endpoint> {
  const endpoint = await findOwnedEndpoint(deps.em, accountId, endpointId);
  if (changes.url !== undefined) endpoint.url = await checkEndpointUrl(changes.url, deps.outbound);
  if (changes.eventTypes !== undefined) endpoint.eventTypes = changes.eventTypes;
  if (changes.description !== undefined) endpoint.description = changes.description;
  if (changes.status !== undefined && changes.status !== endpoint.status) {
    endpoint.status = changes.status;
    endpoint.disabledReason = changes.status === 'disabled' ? 'disabled by the account' : null;
    if (changes.status === 'enabled') endpoint.failingSince = null;
  }
  await deps.em.flush();
  return endpoint;
}
