import { call, type TestAccount } from './api.ts';
import { startReceiver, type Responder, type TestReceiver } from './receiver.ts';

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
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await call('GET', `/accounts/${account.accountId}/endpoints/${endpointId}/deliveries?limit=100`, { token: account.apiKey });
    if (page.status === 200 && predicate(page.body.items)) return page.body.items;
    if (Date.now() > deadline) throw new Error(`deliveries never matched: ${JSON.stringify(page.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
