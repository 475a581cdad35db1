import { readFile } from 'node:fs/promises';

/** A process's resident memory now (VmRSS) and its peak so far (VmHWM), in MiB (Linux /proc only). */
export async function processMemoryMiB(pid: number): Promise<{ rssMiB: number; peakMiB: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
  return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
}
