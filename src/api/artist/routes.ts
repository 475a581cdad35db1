import { getArtistJob } from '../../domain/artist-links/get-artist-job.ts';
import { defineRoute } from '../../http/route.ts';
import { artistLinkDeps } from '../request-deps.ts';
import { artistJobSchema, artistLinkResponses, artistTokenParams } from './schemas.ts';

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
];
