/**
 * The Temporal server settings (dynamic config) the service relies on, set on every server it runs against: the
 * embedded dev server passes them as `--dynamic-config-value`, docker-compose.yml as the file of `DYNAMIC_CONFIG_FILE_PATH`
 * (test/unit/compose.test.ts holds the two together).
 *
 * - Updates, which the recording job's steps and an experience run's cancel are.
 * - Eager workflow start: a run the worker process starts on a queue it polls gets its first task with the start.
 * - Eager activity execution: an activity a workflow task schedules on the worker's own queue comes back with the
 *   task's completion, instead of through the queue (docs/adr/0063-runs-the-worker-starts-start-eagerly.md).
 */
export const serverDynamicConfig = {
  'frontend.enableUpdateWorkflowExecution': true,
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted': true,
  'system.enableEagerWorkflowStart': true,
  'system.enableActivityEagerExecution': true,
} as const;
