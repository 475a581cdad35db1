import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Called by the vitest configurations before any test process starts: the service's worker and API processes that
 * tests start (dozens in a run) load the same modules, and Node keeps their compiled code in this folder
 * (NODE_COMPILE_CACHE) instead of compiling them again at each start, about a second of CPU each. Node checks each
 * entry against its source, so a folder left by an earlier run is safe to reuse. A value already set wins.
 */
export function shareCompiledCode(): void {
  process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'richpush-node-compile-cache');
}
