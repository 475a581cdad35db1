import { getArtistJob } from '../../domain/artist-links/get-artist-job.ts';
import { deleteArtistTake } from '../../domain/artist-takes/delete-artist-take.ts';
import { listArtistTakes } from '../../domain/artist-takes/list-artist-takes.ts';
import { uploadArtistTake } from '../../domain/artist-takes/upload-artist-take.ts';
import { maxTakesPerJob } from '../../domain/jobs/take-limit.ts';
import { defineRoute } from '../../http/route.ts';
import { closingUnread, declaredLength } from '../../http/streamed-body.ts';
import { artistLinkDeps, artistTakeDeps } from '../request-deps.ts';
import {
  artistJobSchema,
  artistLinkResponses,
  artistTakeParams,
  artistTakeSchema,
  artistTakesSchema,
  artistTokenParams,
  artistUploadQuery,
  toArtistTakeResponse,
} from './schemas.ts';

const tag = 'Artist';

/**
 * An artist's answers are theirs alone: no cache may keep them, and no page they lead to learns the link's address
 * from a Referer.
 */
export const artistAnswerHeaders = { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' };

/**
 * The routes an artist's link opens, with its token and no API key (docs/recordings.md, "The artist's link"). Each
 * resolves the token through `resolveArtistLink` (404, 410) and acts for that job only.
 */
export const artistRoutes = [
  defineRoute({
    method: 'get',
    path: '/artist/:token/job',
    operationId: 'getArtistJob',
    summary: 'The job an artist’s link is for: what to record and by when (the link’s token, no API key)',
    tag,
    auth: 'none',
    linkTokenParam: 'token',
    params: artistTokenParams,
    responses: { 200: { description: 'The job as its artist sees it', schema: artistJobSchema }, ...artistLinkResponses },
    handler: async ({ params }, ctx) => ({ status: 200, headers: artistAnswerHeaders, body: await getArtistJob(artistLinkDeps(ctx), params.token) }),
  }),
  defineRoute({
    method: 'post',
    path: '/artist/:token/takes',
    operationId: 'uploadArtistTake',
    summary: 'Upload a take as the raw body (the link’s token, no API key): checked as POST /file/upload checks a file, and submitted to the job',
    tag,
    auth: 'none',
    linkTokenParam: 'token',
    params: artistTokenParams,
    query: artistUploadQuery,
    streamBody: {
      mediaTypes: ['audio/*', 'application/octet-stream'],
      description: 'The take’s bytes as they are (WAV, AIFF, MP3, AAC, M4A, FLAC, Ogg), at most RECORDING_MAX_BYTES. The type is read from the bytes; an audio Content-Type must agree with them.',
    },
    responses: {
      202: {
        description: 'The take: `processing` (submitted to the job, checked and normalised on the worker), or `rejected` with its reason when its first bytes are not audio or not the declared type (then it is no take)',
        schema: artistTakeSchema,
      },
      409: { description: `A take has been selected (\`invalid_state\`), or the job has its ${maxTakesPerJob} takes (\`too_many_takes\`)` },
      413: { description: 'The body passed RECORDING_MAX_BYTES (`too_large`); the rest was not read, nothing was stored, the connection closes' },
      415: { description: 'The Content-Type is neither audio nor application/octet-stream (`unsupported_media_type`)' },
      503: { description: 'This deployment cannot process recordings now (`media_unavailable`); or Postgres or Temporal is out of reach' },
      ...artistLinkResponses,
    },
    handler: async ({ params, query, bodyStream }, ctx) =>
      closingUnread(bodyStream, async () => {
        const { headers } = ctx.request;
        const file = await uploadArtistTake(artistTakeDeps(ctx), params.token, {
          fileName: query.fileName ?? null,
          declaredType: headers['content-type'],
          declaredLength: declaredLength(headers),
          body: bodyStream,
        });
        return { status: 202, headers: artistAnswerHeaders, body: toArtistTakeResponse(file, null) };
      }),
  }),
  defineRoute({
    method: 'get',
    path: '/artist/:token/takes',
    operationId: 'listArtistTakes',
    summary: 'The job’s takes, oldest first, each with its status and where to listen to it (the link’s token, no API key)',
    tag,
    auth: 'none',
    linkTokenParam: 'token',
    params: artistTokenParams,
    responses: { 200: { description: 'The takes', schema: artistTakesSchema }, ...artistLinkResponses },
    handler: async ({ params }, ctx) => {
      const { takes, selectedFileId } = await listArtistTakes(artistTakeDeps(ctx), params.token);
      return { status: 200, headers: artistAnswerHeaders, body: { items: takes.map((take) => toArtistTakeResponse(take, selectedFileId)), maxTakes: maxTakesPerJob } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/artist/:token/takes/:fileId',
    operationId: 'deleteArtistTake',
    summary: 'Delete a take, its files and its row, while no take is selected (the link’s token, no API key)',
    tag,
    auth: 'none',
    linkTokenParam: 'token',
    params: artistTakeParams,
    responses: {
      204: { description: 'Deleted' },
      409: { description: 'A take has been selected, so none is deleted any more (`invalid_state`); or a stock recording plays this one (`file_in_use`)' },
      ...artistLinkResponses,
      404: { description: 'No such link, or no such take of its job (`not_found`)' },
    },
    handler: async ({ params }, ctx) => {
      const deps = artistTakeDeps(ctx);
      await deleteArtistTake({ ...deps, storage: deps.files.storage }, params.token, params.fileId);
      return { status: 204, headers: artistAnswerHeaders };
    },
  }),
];
