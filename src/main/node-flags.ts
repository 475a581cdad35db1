/**
 * The V8 flags an entry point runs with wherever it runs: its npm script (package.json), docker-compose.yml, and the
 * child processes of the tests and benches (test/support/entry-point.ts). test/unit/compose.test.ts holds the three
 * to this list.
 *
 * The worker's heap is sized (docs/adr/0060-the-worker-runs-with-a-sized-heap.md): on a large machine V8 lets the
 * young generation grow to 64 MiB a half and the old one to a quarter of memory before it collects, so a worker
 * sending a million pushes held 300 MiB of garbage; a smaller young generation than 32 MiB costs CPU in scavenges. The Temporal SDK sizes its workflow cache from this limit too.
 */
export const workerNodeFlags = ['--max-old-space-size=512', '--max-semi-space-size=32'] as const;

export function nodeFlagsOf(entryPoint: string): readonly string[] {
  return entryPoint === 'src/main/worker.ts' ? workerNodeFlags : [];
}
