import { DomainError } from '../errors.ts';
import { publishEvent, type PublishDeps } from '../events/publish-event.ts';
import { findOwnedEndpoint } from './find-owned-endpoint.ts';

/** Sends a `webhook.test` event to one endpoint, whatever it subscribes to. */
export async function sendTestEvent(deps: PublishDeps, accountId: string, endpointId: string): Promise<{ eventId: string }> {
  const endpoint = await findOwnedEndpoint(deps.em, accountId, endpointId);
  if (endpoint.status !== 'enabled') {
    throw new DomainError('invalid_state', `The endpoint is ${endpoint.status}; it must be enabled to receive a test event`);
  }
  return publishEvent(deps, {
    accountId,
    type: 'webhook.test',
    data: { result: { message: 'This is a test event from the rich push service.', endpointId } },
    onlyEndpointId: endpoint.id,
  });
}
