import { z } from 'zod';
import { createAccount } from '../../domain/accounts/create-account.ts';
import { runSelfTest } from '../../domain/self-test/run-self-test.ts';
import { defineRoute } from '../../http/route.ts';
import { timestamp, trimmedText } from '../shared-schemas.ts';

const createAccountBody = z.strictObject({ name: trimmedText(200) }).meta({ id: 'CreateAccount' });

const createdAccountSchema = z
  .object({
    accountId: z.uuid(),
    name: z.string(),
    apiKey: z.string().meta({ description: 'Shown once. Only its hash is stored.' }),
    createdAt: timestamp,
  })
  .meta({ id: 'CreatedAccount' });

const selfTestSchema = z
  .object({ workflowId: z.string(), runId: z.string(), databaseNow: timestamp })
  .meta({ id: 'SelfTestResult' });

const tag = 'Admin';

export const adminRoutes = [
  defineRoute({
    method: 'post',
    path: '/admin/accounts',
    operationId: 'createAccount',
    summary: 'Create an account and its API key',
    tag,
    auth: 'admin',
    body: createAccountBody,
    responses: { 201: { description: 'The account, with its API key shown once', schema: createdAccountSchema } },
    handler: async ({ body }, { em }) => {
      const { account, apiKey } = await createAccount(em, body);
      return {
        status: 201,
        body: { accountId: account.id, name: account.name, apiKey, createdAt: account.createdAt.toISOString() },
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/admin/self-test',
    operationId: 'runSelfTest',
    summary: 'Run a workflow through Temporal and a worker to Postgres and back',
    tag,
    auth: 'admin',
    responses: { 200: { description: 'The workflow completed', schema: selfTestSchema } },
    handler: async (_input, { services }) => ({
      status: 200,
      body: await runSelfTest(services.temporal),
    }),
  }),
];
