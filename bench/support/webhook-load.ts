import { createAccount } from '../../src/domain/accounts/create-account.ts';
import type { DeliverySettings } from '../../src/domain/deliveries/delivery-settings.ts';
import { createEndpoint } from '../../src/domain/endpoints/create-endpoint.ts';
import { publishEvent } from '../../src/domain/events/publish-event.ts';
import type { Orm } from '../../src/persistence/orm.ts';
import { newId } from '../../src/security/ids.ts';
import { parseAllowCidrs, systemResolve } from '../../src/security/ip-policy.ts';
import { createSecretBox } from '../../src/security/secret-box.ts';
import type { TemporalAccess } from '../../src/temporal/temporal-access.ts';
import { pace } from './pace.ts';
import type { BenchReceiver, Recording } from './receiver.ts';

/** Loopback, which the address policy blocks unless allowed: the bench receivers listen there. */
export const loopbackCidrs = '127.0.0.0/8,::1/128';

/** The `data` of the bench's `webhook.test` event number `index`. */
export const benchEventData = (index: number) => ({ result: { message: 'This is a test event from the rich push service.', seq: index } });

export interface WebhookAccount {
  accountId: string;
  endpointId: string;
  secret: string;
}

/**
 * A new account with one endpoint at the receiver, subscribed to `webhook.test`, made with the domain functions;
 * the receiver checks signatures against the endpoint's secret from then on.
 */
export async function subscribeReceiver(orm: Orm, secretsKey: string, receiver: BenchReceiver, name: string): Promise<WebhookAccount> {
  const { account } = await createAccount(orm.em.fork(), { name });
  const { endpoint, secret } = await createEndpoint(
    { em: orm.em.fork(), secrets: createSecretBox(secretsKey), outbound: { allow: parseAllowCidrs(loopbackCidrs), resolve: systemResolve } },
    account.id,
    { url: receiver.url, eventTypes: ['webhook.test'], description: `${name} receiver` },
  );
  receiver.secrets = [secret];
  return { accountId: account.id, endpointId: endpoint.id, secret };
}

export interface WebhookPublisher {
  orm: Orm;
  temporal: TemporalAccess;
  delivery: DeliverySettings;
  accountId: string;
}

/** Publishes one `webhook.test` event through the service (publishEvent: the event and its delivery rows, which the relay starts in batches). */
export const publishBenchEvent = (publisher: WebhookPublisher, eventId: string, index: number) =>
  publishEvent(
    { em: publisher.orm.em.fork(), temporal: publisher.temporal, delivery: publisher.delivery },
    { eventId, accountId: publisher.accountId, type: 'webhook.test', data: benchEventData(index) },
  );

export interface WebhookLoadFigures {
  published: number;
  /** Of those, received by the end of the load (the rest arrive later). */
  received: number;
  wallMs: number;
  failures: number;
}

/**
 * Background delivery load: `inFlight` loops, each publishing an event and waiting until the receiver has it before
 * publishing the next, so the service has at most that many deliveries open and no backlog grows without bound.
 * With `ratePerSecond`, publishes are also paced to that rate in all; without it, each loop publishes as soon as its
 * last delivery arrived. `stop()` ends the loops (the deliveries still open finish on their own) and returns what was
 * achieved.
 */
export function startWebhookLoad(
  publisher: WebhookPublisher,
  recording: Recording,
  inFlight: number,
  ratePerSecond?: number,
): { stop(): Promise<WebhookLoadFigures> } {
  const stopping = new AbortController();
  const stopped = new Promise<void>((resolve) => stopping.signal.addEventListener('abort', () => resolve(), { once: true }));
  const figures = { published: 0, received: 0, failures: 0 };
  const startedAt = performance.now();
  let endedAt = startedAt;
  const untilDue = ratePerSecond ? pace(ratePerSecond, startedAt) : undefined;
  let scheduled = 0;
  const loop = async () => {
    while (!stopping.signal.aborted) {
      if (untilDue) {
        await Promise.race([untilDue(scheduled++), stopped]);
        if (stopping.signal.aborted) break;
      }
      const eventId = newId('evt_');
      try {
        await publishBenchEvent(publisher, eventId, figures.published++);
      } catch {
        figures.failures += 1;
        continue;
      }
      await Promise.race([recording.whenReceived(eventId), stopped]);
      if (recording.receivedAt.has(eventId)) figures.received += 1;
    }
  };
  const loops = Promise.all(Array.from({ length: inFlight }, loop));
  return {
    async stop() {
      endedAt = performance.now();
      stopping.abort();
      await loops;
      return { ...figures, wallMs: endedAt - startedAt };
    },
  };
}
