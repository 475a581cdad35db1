import { acceptUpload } from '../../domain/files/accept-upload.ts';
import { findOwnedFile } from '../../domain/files/find-owned-file.ts';
import { openRecording } from '../../domain/files/open-recording.ts';
import { matchesEntityTag, parseRangeHeader } from '../../http/byte-ranges.ts';
import { defineRoute, type RouteResult } from '../../http/route.ts';
import { closingUnread, declaredLength } from '../../http/streamed-body.ts';
import { fileDeps } from '../request-deps.ts';
import { fileIdQuery, fileSchema, playbackHeaders, playbackParams, toFileResponse, uploadQuery } from './schemas.ts';

const tag = 'Recording files';
const file = { description: 'The file', schema: fileSchema };

/** A delivery file never changes under its URL: devices and caches may keep it for good. */
const immutable = 'public, max-age=31536000, immutable';

export const fileRoutes = [
  defineRoute({
    method: 'post',
    path: '/file/upload',
    operationId: 'uploadFile',
    summary: 'Upload a recording as the raw body; it is checked and normalised on the worker (status processing → ready or rejected)',
    tag,
    auth: 'account',
    query: uploadQuery,
    streamBody: {
      mediaTypes: ['audio/*', 'application/octet-stream'],
      description: 'The recording’s bytes as they are (WAV, AIFF, MP3, AAC, M4A, FLAC, Ogg), at most RECORDING_MAX_BYTES. The type is read from the bytes; an audio Content-Type must agree with them.',
    },
    responses: {
      202: { description: 'The file: `processing`, or `rejected` with its reason when its first bytes are not audio or not the declared type', schema: fileSchema },
      404: { description: 'The appId is not one of the account’s apps' },
      413: { description: 'The body passed RECORDING_MAX_BYTES (`too_large`); the rest was not read, nothing was stored, the connection closes' },
      415: { description: 'The Content-Type is neither audio nor application/octet-stream (`unsupported_media_type`)' },
      503: { description: 'This deployment cannot process recordings now (`media_unavailable`: no ffmpeg); or Postgres or Temporal is out of reach' },
    },
    handler: async ({ query, bodyStream }, ctx) =>
      closingUnread(bodyStream, async () => {
        const headers = ctx.request.headers;
        const uploaded = await acceptUpload(fileDeps(ctx), {
          accountId: ctx.account.id,
          appId: query.appId,
          jobId: null,
          fileName: query.fileName ?? null,
          declaredType: headers['content-type'],
          declaredLength: declaredLength(headers),
          body: bodyStream,
          source: 'upload',
        });
        return { status: 202, body: toFileResponse(uploaded) };
      }),
  }),
  defineRoute({
    method: 'get',
    path: '/file/get',
    operationId: 'getFile',
    summary: 'Get a recording file: its status, why it was rejected, or what it plays',
    tag,
    auth: 'account',
    query: fileIdQuery,
    responses: { 200: file, 404: { description: 'No such file in this account' } },
    handler: async ({ query }, { em, account }) => ({ status: 200, body: toFileResponse(await findOwnedFile(em, account.id, query.id)) }),
  }),
  defineRoute({
    method: 'get',
    path: '/recordings/:fileId/:name',
    operationId: 'playRecording',
    summary: 'Play a recording (devices, no key): the delivery file, with HTTP Range; on S3, a redirect to a fresh presigned GET',
    tag,
    auth: 'none',
    params: playbackParams,
    documentedHeaders: playbackHeaders,
    responses: {
      200: { description: 'The delivery file (AAC-LC in MPEG-4 audio), cacheable for good', mediaType: 'audio/mp4' },
      206: { description: 'The byte range asked for, with Content-Range', mediaType: 'audio/mp4' },
      302: { description: 'S3 storage: the file is at Location, a presigned GET that works for 15 minutes' },
      304: { description: 'If-None-Match names this file' },
      404: { description: 'No such recording: unknown, rejected, deleted, or a URL whose signature is not the file’s' },
      409: { description: 'The file is still processing (`file_not_ready`); retry after Retry-After' },
      416: { description: 'The range starts past the end (`range_not_satisfiable`); Content-Range gives the size' },
    },
    handler: async ({ params }, ctx): Promise<RouteResult> => {
      const { headers } = ctx.request;
      const range = parseRangeHeader(header(headers.range));
      const playback = await openRecording({ em: ctx.em, files: ctx.services.files }, params.fileId, params.name.slice(0, -'.m4a'.length), { range });
      if ('redirectTo' in playback) return { status: 302, headers: { Location: playback.redirectTo, 'Cache-Control': 'no-store' } };
      const { read } = playback;
      const cache = { ETag: read.etag, 'Cache-Control': immutable, 'Accept-Ranges': 'bytes' };
      if (matchesEntityTag(header(headers['if-none-match']), read.etag)) {
        read.body.destroy();
        return { status: 304, headers: cache };
      }
      return {
        status: read.range ? 206 : 200,
        headers: {
          ...cache,
          'Content-Type': 'audio/mp4',
          'Content-Length': String(read.contentLength),
          'Last-Modified': read.lastModified.toUTCString(),
          ...(read.range ? { 'Content-Range': `bytes ${read.range.start}-${read.range.end}/${read.sizeBytes}` } : {}),
        },
        body: read.body,
      };
    },
  }),
];

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
