/** The worker's entry point, the one launched differently. */
export const workerEntryPoint = 'src/main/worker.ts';

/**
 * The young generation of every isolate in the worker process, in MiB a semi-space: its main thread's and each
 * Temporal SDK workflow thread's. V8 sizes every isolate from the process's flags, and the SDK creates its workflow
 * threads without resource limits (it takes none), so one launch flag sizes them all. Workflow code keeps little
 * alive between tasks, so a larger young generation there was mostly garbage; the main thread's sends pay for this
 * one in scavenges (docs/adr/0060-the-worker-runs-with-a-sized-heap.md).
 */
export const workerSemiSpaceMiB = 16;

/**
 * How an entry point's process is launched wherever it runs: its npm script (package.json), docker-compose.yml, and
 * the child processes of the tests and benches (test/support/entry-point.ts). test/unit/compose.test.ts holds the
 * three to this file. Flags are given at launch only: V8 documents changing them in a running process as unsafe.
 *
 * The worker's heap is sized (docs/adr/0060-the-worker-runs-with-a-sized-heap.md): on a large machine V8 lets the
 * young generation grow to 64 MiB a half and the old one to a quarter of memory before it collects, so a worker
 * sending a million pushes held 300 MiB of garbage. The Temporal SDK sizes its workflow cache from this limit too.
 */
export const workerNodeFlags = ['--max-old-space-size=512', `--max-semi-space-size=${workerSemiSpaceMiB}`] as const;

/**
 * The worker's environment at launch (docs/adr/0060-the-worker-runs-with-a-sized-heap.md):
 * glibc gives each thread that meets contention an arena of its own, up to eight per core, and memory freed in one
 * arena is not reused by another; the SDK's native core, libuv and the workflow threads each allocate from their own,
 * which held about 70 MiB more at 10,000 live runs than two arenas do. glibc reads it once, before the first
 * allocation, so it cannot be set from inside the process.
 */
export const workerEnvironment = { MALLOC_ARENA_MAX: '2' } as const;

/** The API's entry point. */
export const apiEntryPoint = 'src/main/api.ts';

/**
 * The API's young generation, in MiB a semi-space (docs/adr/0084-the-api-runs-with-a-small-young-generation.md). An
 * upload streams through short-lived Buffers whose memory is freed only when a scavenge collects them: V8's default
 * on a large machine (64 MiB a half) let them pile up to its external-memory limit; 4 MiB a half collects them every
 * few MB of upload.
 */
export const apiSemiSpaceMiB = 4;

export const apiNodeFlags = [`--max-semi-space-size=${apiSemiSpaceMiB}`] as const;

export function nodeFlagsOf(entryPoint: string): readonly string[] {
  if (entryPoint === workerEntryPoint) return workerNodeFlags;
  return entryPoint === apiEntryPoint ? apiNodeFlags : [];
}

/**
 * The API's environment at launch: two malloc arenas, as the worker's, for what an upload's Buffers leave in glibc's
 * arenas once freed (docs/adr/0084-the-api-runs-with-a-small-young-generation.md).
 */
export const apiEnvironment = { MALLOC_ARENA_MAX: '2' } as const;

export function launchEnvironmentOf(entryPoint: string): Readonly<Record<string, string>> {
  if (entryPoint === workerEntryPoint) return workerEnvironment;
  return entryPoint === apiEntryPoint ? apiEnvironment : {};
}
