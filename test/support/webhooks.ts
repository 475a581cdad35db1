import { call, type TestAccount } from './api.ts';
import { startReceiver, type Responder, type TestReceiver } from './receiver.ts';
import { until } from './wait.ts';

export interface EndpointFixture {
  endpointId: string;
  secret: string;
  receiver: TestReceiver;
}

/** A local HTTPS receiver registered as an endpoint of the account. */
export async function newEndpoint(account: TestAccount, eventTypes: string[] = ['webhook.test'], responder?: Responder): Promise<EndpointFixture> {
  const receiver = await startReceiver(responder);
  const response = await call('POST', `/accounts/${account.accountId}/endpoints`, {
    token: account.apiKey,
    body: { url: receiver.url, eventTypes },
  });
  if (response.status !== 201) throw new Error(`endpoint creation failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { endpointId: response.body.endpointId, secret: response.body.secret, receiver };
}

/** Polls the deliveries list until the predicate holds. */
export async function waitForDeliveries(
  account: TestAccount,
  endpointId: string,
  predicate: (items: any[]) => boolean,
  timeoutMs = 20_000,
): Promise<any[]> {
  const page = await until(
    `the deliveries to endpoint ${endpointId} to match`,
    () => call('GET', `/accounts/${account.accountId}/endpoints/${endpointId}/deliveries?limit=100`, { token: account.apiKey }),
    (answer) => answer.status === 200 && predicate(answer.body.items),
    { timeoutMs, show: (last) => ({ status: last.status, body: last.body }) },
  );
  return page.body.items;
}
