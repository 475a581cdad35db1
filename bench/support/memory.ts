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

/**
 * Samples a process's VmRSS every `everyMs` (from /proc, so a busy process is read all the same) and keeps the highest.
 * `peakMiB()` also takes VmHWM when it rose since the sampling began: the kernel's own peak, which catches a spike
 * between two samples.
 */
export async function sampleRssPeak(pid: number, everyMs = 20) {
  const start = await processMemoryMiB(pid);
  let highest = start.rssMiB;
  const timer = setInterval(() => {
    processMemoryMiB(pid).then(
      ({ rssMiB }) => (highest = Math.max(highest, rssMiB)),
      () => undefined,
    );
  }, everyMs);
  timer.unref();
  return {
    startMiB: start.rssMiB,
    /** Stops sampling; answers the highest resident memory seen, in MiB. */
    async peakMiB(): Promise<number> {
      clearInterval(timer);
      const end = await processMemoryMiB(pid);
      return Math.max(highest, end.rssMiB, end.peakMiB > start.peakMiB ? end.peakMiB : 0);
    },
  };
}
