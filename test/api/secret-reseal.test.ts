import { afterAll, describe, expect, inject, it } from 'vitest';
import { resealLegacySecrets } from '../../src/domain/secrets/reseal-legacy-secrets.ts';
import { secretContexts } from '../../src/domain/secrets/secret-contexts.ts';
import { connectOrm } from '../../src/persistence/orm.ts';
import { createSecretBox, generateSecretsKey } from '../../src/security/secret-box.ts';
import { generateWebhookSecret } from '../../src/security/standard-webhooks.ts';
import { newAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { directEvent, newConnection, postSigned } from '../support/ingest.ts';
import { startApiInstance, type ApiInstance } from '../support/instances.ts';
import { until } from '../support/wait.ts';
import { sealLegacy } from '../support/legacy-seal.ts';
import { newEndpoint } from '../support/webhooks.ts';

// Secrets stored before docs/adr/0002-stored-secrets-are-sealed-with-secrets-key.md were sealed without a context (v1). An API instance re-seals them for their row
// when it starts; the secrets themselves do not change, so signatures keep verifying.

const box = createSecretBox(inject('secretsKey'));
const otherApis: ApiInstance[] = [];
afterAll(async () => {
  await Promise.all(otherApis.map((api) => api.stop()));
});

const endpointRow = async (id: string) => (await query('select secret_sealed, previous_secret_sealed from endpoints where id = $1', [id]))[0];
const connectionRow = async (id: string) =>
  (await query('select signing_secret_sealed, previous_signing_secret_sealed, outbound_credential_sealed from connections where id = $1', [id]))[0];

describe('secrets stored before docs/adr/0002-stored-secrets-are-sealed-with-secrets-key.md', () => {
  it('are sealed again for their row when an API instance starts, and keep working', async () => {
    const account = await newAccount();
    const endpoint = await newEndpoint(account);
    const connection = await newConnection(account);
    const previousEndpointSecret = generateWebhookSecret();
    const previousSigningSecret = generateWebhookSecret();
    const legacy = (plaintext: string) => sealLegacy(inject('secretsKey'), plaintext);
    await query(`update endpoints set secret_sealed = $2, previous_secret_sealed = $3, previous_secret_expires_at = now() + interval '1 hour' where id = $1`, [
      endpoint.endpointId,
      legacy(endpoint.secret),
      legacy(previousEndpointSecret),
    ]);
    await query(
      `update connections set signing_secret_sealed = $2, previous_signing_secret_sealed = $3, previous_signing_secret_expires_at = now() + interval '1 hour',
       outbound_credential_sealed = $4 where id = $1`,
      [connection.connectionId, legacy(connection.signingSecret), legacy(previousSigningSecret), legacy('write-key-1')],
    );

    otherApis.push(await startApiInstance());
    const resealed = await until('the legacy secrets sealed again', async () => {
      const [ep, conn] = [await endpointRow(endpoint.endpointId), await connectionRow(connection.connectionId)];
      const values = [...Object.values(ep), ...Object.values(conn)] as string[];
      return values.every((value) => value.startsWith('v2.')) && { ep, conn };
    });

    const endpointContext = secretContexts.endpointSigning(endpoint.endpointId);
    expect(box.open(resealed.ep.secret_sealed, endpointContext)).toBe(endpoint.secret);
    expect(box.open(resealed.ep.previous_secret_sealed, endpointContext)).toBe(previousEndpointSecret);
    expect(box.open(resealed.conn.outbound_credential_sealed, secretContexts.connectionOutboundCredential(connection.connectionId))).toBe('write-key-1');
    // The connection's secrets, current and previous, still verify posts on the new instance.
    for (const secret of [connection.signingSecret, previousSigningSecret]) {
      const posted = await postSigned(connection, directEvent(), { secret, baseUrl: otherApis[0]!.url });
      expect(posted.status).toBe(202);
    }
  });

  it("refuses one connection's sealed secret moved into another connection's row", async () => {
    const account = await newAccount();
    const [victim, other] = [await newConnection(account), await newConnection(account)];
    const [victimRow] = await query('select signing_secret_sealed from connections where id = $1', [victim.connectionId]);
    // Still opens where it belongs; in the other row it names the row it does not open for.
    expect(box.open(victimRow.signing_secret_sealed, secretContexts.connectionSigning(victim.connectionId))).toBe(victim.signingSecret);
    await query('update connections set signing_secret_sealed = $2 where id = $1', [other.connectionId, victimRow.signing_secret_sealed]);
    const [moved] = await query('select signing_secret_sealed from connections where id = $1', [other.connectionId]);
    expect(() => box.open(moved.signing_secret_sealed, secretContexts.connectionSigning(other.connectionId))).toThrow(`does not open for connection:${other.connectionId}`);
  });

  it('leaves a value that does not open under SECRETS_KEY as it is, and names its row', async () => {
    const account = await newAccount();
    const [first, unreadable] = [await newEndpoint(account), await newEndpoint(account)];
    const foreign = sealLegacy(generateSecretsKey(), 'whsec_from_elsewhere');
    await query('update endpoints set secret_sealed = $2 where id = $1', [first.endpointId, sealLegacy(inject('secretsKey'), first.secret)]);
    await query('update endpoints set secret_sealed = $2 where id = $1', [unreadable.endpointId, foreign]);
    const orm = await connectOrm(inject('databaseUrl'), 1);
    try {
      // One row per batch, so the walk goes past the unreadable row to the next.
      const outcome = await resealLegacySecrets(orm.em.fork(), box, 1);
      expect(outcome.unreadable).toContainEqual({ table: 'endpoints', id: unreadable.endpointId, column: 'secret_sealed' });
      expect((await endpointRow(unreadable.endpointId)).secret_sealed).toBe(foreign);
      expect(box.open((await endpointRow(first.endpointId)).secret_sealed, secretContexts.endpointSigning(first.endpointId))).toBe(first.secret);
    } finally {
      await query('delete from endpoints where id = $1', [unreadable.endpointId]);
      await orm.close();
    }
  });
});
