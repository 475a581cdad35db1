import { ActivityFailure, CancellationScope, isCancellation, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { failureReason } from './failure-reason.ts';
import { fetchActivityOptions, processingActivityOptions, type FileOutcome, type ProcessFileInput } from './process-file.contract.ts';

const { processRecordingFile } = proxyActivities<Activities>(processingActivityOptions);
const { fetchRecordingSource } = proxyActivities<Activities>(fetchActivityOptions);
const { rejectRecordingFile } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } });

/**
 * One recording file, `file:<fileId>`: fetched when it came as a URL, then checked and normalised by one activity
 * that records the outcome on the file's row. Every step is idempotent, so a retry, or the run started again, ends
 * the same way. A step that fails for good rejects the file with what went wrong (`unreachable` for the fetch,
 * `unreadable` for the processing). A cancelled run (by an operator, or because its file was deleted) rejects the file
 * as `cancelled`, unless it is gone or decided already, and ends cancelled.
 */
export async function processFile(input: ProcessFileInput): Promise<FileOutcome | null> {
  const { fileId } = input;
  const outcome = (input.fetch ? await step('fetch', fileId, () => fetchRecordingSource({ fileId })) : null) ?? (await step('process', fileId, () => processRecordingFile({ fileId })));
  setCurrentDetails(describe(outcome));
  return outcome;
}

/**
 * Runs one step; answers the file's outcome when the step decided it, null when the file goes on (a fetched file) or
 * is gone.
 */
async function step(name: 'fetch' | 'process', fileId: string, run: () => Promise<{ status: string } | null>): Promise<FileOutcome | null> {
  setCurrentDetails(name === 'fetch' ? 'fetching its URL' : 'checking and normalising');
  try {
    const result = await run();
    return result && result.status !== 'stored' ? (result as FileOutcome) : null;
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => rejectRecordingFile({ fileId, reason: 'cancelled', detail: 'Its processing was cancelled; upload it again.' }));
      throw error;
    }
    if (!(error instanceof ActivityFailure)) throw error;
    const [reason, what] = name === 'fetch' ? ['unreachable', 'Its URL could not be fetched'] : ['unreadable', 'It could not be processed'];
    return rejectRecordingFile({ fileId, reason, detail: `${what}: ${failureReason(error)}` });
  }
}

function describe(outcome: FileOutcome | null): string {
  if (!outcome) return 'the file is gone';
  if (outcome.status === 'rejected') return `**rejected** · ${outcome.reason ?? '—'} · ${outcome.detail ?? ''}`;
  const seconds = outcome.durationMs === null ? '—' : (outcome.durationMs / 1000).toFixed(1);
  const loudness = outcome.loudnessLufs === null ? '—' : outcome.loudnessLufs.toFixed(1);
  return `**ready** · ${seconds} s · measured ${loudness} LUFS, delivered at −16 LUFS`;
}
