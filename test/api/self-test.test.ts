import { Client, Connection } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';
import { call } from '../support/api.ts';

describe('POST /admin/self-test', () => {
  it('runs a workflow on the real Temporal server through the worker to Postgres and back', async () => {
    const before = Date.now();
    const response = await call('POST', '/admin/self-test', { token: inject('adminToken') });
    expect(response.status).toBe(200);
    expect(response.body.workflowId).toMatch(/^self-test:[0-9a-f-]{36}$/);
    const databaseNow = new Date(response.body.databaseNow).getTime();
    expect(databaseNow).toBeGreaterThanOrEqual(before - 5000);
    expect(databaseNow).toBeLessThanOrEqual(Date.now() + 5000);

    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const client = new Client({ connection, namespace: inject('namespace') });
      const description = await client.workflow.getHandle(response.body.workflowId, response.body.runId).describe();
      expect(description.status.name).toBe('COMPLETED');
      expect(description.taskQueue).toBe(inject('taskQueue'));
      expect(description.typedSearchAttributes.get({ name: 'EntityType', type: 'KEYWORD' } as never)).toBe('self-test');
      const history = await client.workflow.getHandle(response.body.workflowId).fetchHistory();
      const activity = history.events?.find((event) => event.activityTaskScheduledEventAttributes);
      expect(activity?.activityTaskScheduledEventAttributes?.activityType?.name).toBe('readDatabaseClock');
    } finally {
      await connection.close();
    }
  });

  it('requires the admin token', async () => {
    const response = await call('POST', '/admin/self-test');
    expect(response.status).toBe(401);
  });
});
