import { formatDuration } from '../../components/format.ts';

/** What a take's row or card needs: the job's takes (GET /job/files) and the artist's (GET /artist/{token}/takes) both have it. */
export interface TakeLike {
  status: 'processing' | 'ready' | 'rejected';
  reason: string | null;
  detail: string | null;
  durationMs: number | null;
  url: string;
}

/** A take's processing state in words: processing, ready with its length, or rejected with why. */
export function takeStateText(take: TakeLike): string {
  if (take.status === 'processing') return 'processing…';
  if (take.status === 'rejected') return `rejected: ${take.detail ?? take.reason ?? 'no reason given'}`;
  return `ready, ${formatDuration(take.durationMs)}`;
}

/** The take's player once its delivery file plays (its URL answers 409 before): the browser's own controls, labelled. */
export function TakeAudio({ take, label }: { take: TakeLike; label: string }) {
  if (take.status !== 'ready') return <span className="hint">{take.status === 'processing' ? 'not yet' : '—'}</span>;
  return <audio controls preload="none" src={take.url} aria-label={label} />;
}
