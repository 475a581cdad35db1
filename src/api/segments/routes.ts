import { createSegment } from '../../domain/segments/create-segment.ts';
import { getSegment } from '../../domain/segments/get-segment.ts';
import { listSegments } from '../../domain/segments/list-segments.ts';
import { sampleSegment } from '../../domain/segments/sample-segment.ts';
import { updateSegment } from '../../domain/segments/update-segment.ts';
import { defineRoute } from '../../http/route.ts';
import {
  createSegmentBody,
  listSegmentsQuery,
  sampleSegmentQuery,
  segmentIdQuery,
  segmentPage,
  segmentSampleSchema,
  segmentSchema,
  toCountedSegmentResponse,
  toSegmentResponse,
  toSegmentSampleResponse,
  updateSegmentBody,
} from './schemas.ts';
import { toPageResponse } from '../shared-schemas.ts';

const tag = 'Segments (filters)';
const notFound = { description: 'No such segment in this account' };

export const segmentRoutes = [
  defineRoute({
    method: 'post',
    path: '/filter/create',
    operationId: 'createSegment',
    summary: 'Create an audience segment of an app: rules over its devices',
    tag,
    auth: 'account',
    body: createSegmentBody,
    responses: {
      201: { description: 'The segment, with the number of devices it holds now', schema: segmentSchema },
      404: { description: 'The appId is not one of the account’s apps' },
    },
    handler: async ({ body }, { em, account }) => ({ status: 201, body: toCountedSegmentResponse(await createSegment(em, account.id, body)) }),
  }),
  defineRoute({
    method: 'put',
    path: '/filter/update',
    operationId: 'updateSegment',
    summary: 'Change a segment’s name or rules',
    tag,
    auth: 'account',
    body: updateSegmentBody,
    responses: { 200: { description: 'The segment as changed, with its device count', schema: segmentSchema }, 404: notFound },
    handler: async ({ body }, { em, account }) => {
      const { id, ...changes } = body;
      return { status: 200, body: toCountedSegmentResponse(await updateSegment(em, account.id, id, changes)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/filter/get',
    operationId: 'getSegment',
    summary: 'Get one segment with a live device count',
    tag,
    auth: 'account',
    query: segmentIdQuery,
    responses: { 200: { description: 'The segment', schema: segmentSchema }, 404: notFound },
    handler: async ({ query }, { em, account }) => ({ status: 200, body: toCountedSegmentResponse(await getSegment(em, account.id, query.id)) }),
  }),
  defineRoute({
    method: 'get',
    path: '/filter/list',
    operationId: 'listSegments',
    summary: 'List segments, newest first (deviceCount is null here)',
    tag,
    auth: 'account',
    query: listSegmentsQuery,
    responses: { 200: { description: 'One page of segments', schema: segmentPage } },
    handler: async ({ query }, { em, account }) => {
      const page = await listSegments(em, account.id, query);
      return { status: 200, body: toPageResponse(page, toSegmentResponse) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/filter/sample',
    operationId: 'sampleSegment',
    summary: 'A segment’s live size and a sample of the devices its rules match now',
    tag,
    auth: 'account',
    query: sampleSegmentQuery,
    responses: { 200: { description: 'The live count and the first devices, by device id', schema: segmentSampleSchema }, 404: notFound },
    handler: async ({ query }, { em, account }) => ({
      status: 200,
      body: toSegmentSampleResponse(await sampleSegment(em, account.id, query.id, query.limit)),
    }),
  }),
];
