import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger.ts';
import type { RecordingLimits } from '../../media/index.ts';
import type { ObjectStorage } from '../../storage/index.ts';
import { objectKey } from '../../storage/index.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { DomainError } from '../errors.ts';

/** What the API's file code needs beside a request's EntityManager; built once at start. */
export interface FileSettings {
  storage: ObjectStorage;
  /** RECORDING_MAX_BYTES and RECORDING_MAX_SECONDS. */
  limits: RecordingLimits;
  /** The key recording URLs are signed with (src/security/recording-urls.ts). */
  urlKey: Buffer;
  /** Why recordings cannot be processed (no usable ffmpeg), in one line; undefined when they can. */
  mediaUnavailable: string | undefined;
  /** PUBLIC_URL, when set: the base of every recording URL. */
  publicUrl: string | undefined;
}

export interface FileDeps {
  em: EntityManager;
  temporal: TemporalAccess;
  files: FileSettings;
  /** The base of the recording URLs this call makes: PUBLIC_URL, else the address the request was made to. */
  baseUrl: string;
  logger: Logger;
}

/** Where a file's bytes are kept: made from its account and id, never from a name a user gave. */
export const recordingKeys = (accountId: string, fileId: string) => ({
  original: objectKey('recordings', accountId, fileId, 'original'),
  delivery: objectKey('recordings', accountId, fileId, 'delivery.m4a'),
});

/** 503 `media_unavailable` when this deployment cannot process recordings: refused before anything is read or stored. */
export function requireMedia(files: FileSettings): void {
  if (files.mediaUnavailable === undefined) return;
  throw new DomainError('media_unavailable', `Recordings cannot be processed now: ${files.mediaUnavailable}`, undefined, { 'Retry-After': '60' });
}
