import { readFile } from 'node:fs/promises';

/** A process's resident memory now (VmRSS) and its peak so far (VmHWM), in MiB (Linux /proc only). */
export async function processMemoryMiB(pid: number): Promise<{ rssMiB: number; peakMiB: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
  return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
}

/** Where a process's resident memory is, in MiB: the main thread's V8 heap, memory V8 counts outside it, the rest. */
export interface MemoryBreakdown {
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  /** Buffers and other memory held by JavaScript objects outside the V8 heap. */
  externalMiB: number;
  /**
   * Resident memory that is neither: other threads' V8 heaps (the Temporal SDK runs workflows in worker threads, each
   * an isolate with its own heap, which the main thread's heap metrics do not count), malloc's arenas (the SDK's native
   * core allocates there), code.
   */
  otherMiB: number;
}

const mibOfMetric = (text: string, name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN) / 2 ** 20;

/** A process's memory read from its Prometheus metrics (prom-client's default metrics under `prefix`). */
export async function memoryBreakdown(metricsUrl: string, prefix: string): Promise<MemoryBreakdown> {
  const text = await (await fetch(metricsUrl)).text();
  const rssMiB = mibOfMetric(text, `${prefix}process_resident_memory_bytes`);
  const heapUsedMiB = mibOfMetric(text, `${prefix}nodejs_heap_size_used_bytes`);
  const heapTotalMiB = mibOfMetric(text, `${prefix}nodejs_heap_size_total_bytes`);
  const externalMiB = mibOfMetric(text, `${prefix}nodejs_external_memory_bytes`);
  return { rssMiB, heapUsedMiB, heapTotalMiB, externalMiB, otherMiB: rssMiB - heapTotalMiB - externalMiB };
}

/**
 * Samples a process's memory breakdown every `everyMs` and keeps the sample with the highest resident memory, so
 * that a peak can be told apart: heap, external or native. A failed read (the process busy or gone) is skipped.
 */
export function sampleMemoryPeak(metricsUrl: string, prefix: string, everyMs = 2000) {
  let highest: MemoryBreakdown | undefined;
  const sample = async () => {
    try {
      const now = await memoryBreakdown(metricsUrl, prefix);
      if (!highest || now.rssMiB > highest.rssMiB) highest = now;
    } catch {
      // The next sample will do.
    }
  };
  const timer = setInterval(() => void sample(), everyMs);
  timer.unref();
  return {
    /** The highest sample so far. */
    highest: () => highest,
    stop: () => clearInterval(timer),
  };
}
