import { describe, expect, it } from 'vitest';
import { taskQueuesOfRole } from '../../src/service/worker-process.ts';

describe('taskQueuesOfRole', () => {
  const split = { taskQueue: 'richpush', interactiveTaskQueue: undefined };

  it('polls both queues, bulk first, as role all', () => {
    expect(taskQueuesOfRole('all', split)).toEqual(['richpush', 'richpush-interactive']);
  });

  it('polls one queue per split role, so a bulk and an interactive process together poll both', () => {
    expect(taskQueuesOfRole('bulk', split)).toEqual(['richpush']);
    expect(taskQueuesOfRole('interactive', split)).toEqual(['richpush-interactive']);
    expect(taskQueuesOfRole('interactive', { taskQueue: 'richpush', interactiveTaskQueue: 'jobs' })).toEqual(['jobs']);
  });

  it('polls the one queue once when both names are the same', () => {
    expect(taskQueuesOfRole('all', { taskQueue: 'richpush', interactiveTaskQueue: 'richpush' })).toEqual(['richpush']);
  });
});
