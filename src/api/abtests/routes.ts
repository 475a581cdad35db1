import { resultsOf } from '../../domain/abtests/ab-test-results.ts';
import { cancelAbTestRun, scheduleAbTest, updateAbTest, validateAbTest } from '../../domain/abtests/change-ab-test.ts';
import { createAbTest } from '../../domain/abtests/create-ab-test.ts';
import { findOwnedAbTest } from '../../domain/abtests/find-owned-ab-test.ts';
import { listAbTests } from '../../domain/abtests/list-ab-tests.ts';
import { defineRoute, type RequestContext } from '../../http/route.ts';
import {
  abTestIdQuery,
  abTestListQuery,
  abTestPageSchema,
  abTestQuery,
  abTestSchema,
  abTestWithResultsSchema,
  checkedAbTestSchema,
  createAbTestBody,
  toAbTestResponse,
  toAbTestWithResults,
  toCheckedAbTestResponse,
  updateAbTestBody,
} from './schemas.ts';
import { toPageResponse } from '../shared-schemas.ts';

const tag = 'A/B tests';
const notFound = { description: 'No such test (or app) in this account' };
const wrongState = { description: 'Not allowed in the test’s state (`invalid_state`)' };
const notValid = { description: 'A check failed (`abtest_not_valid`); `details` lists every one' };
const abTestDeps = ({ em, services }: RequestContext) => ({ em, temporal: services.temporal });

/**
 * Validate and schedule are documented as POST and sent as PUT in the spec's samples: both methods are served, as two
 * operations (`validateAbTest`, `validateAbTestPut`) of one handler.
 */
const bothMethods = ['post', 'put'] as const;
const operationIdOf = (name: string, method: 'post' | 'put') => (method === 'post' ? name : `${name}Put`);

const validateRoute = (method: 'post' | 'put') =>
  defineRoute({
    method,
    path: '/abtest/validate',
    operationId: operationIdOf('validateAbTest', method),
    summary: 'Check everything a test needs; VALIDATED with the audience size and warnings',
    tag,
    auth: 'account',
    query: abTestQuery,
    responses: { 200: { description: 'The test, VALIDATED', schema: checkedAbTestSchema }, 404: notFound, 409: wrongState, 422: notValid },
    handler: async ({ query }, ctx) => {
      const { test, check } = await validateAbTest(abTestDeps(ctx), ctx.account.id, query.id, query.appId);
      return { status: 200, body: toCheckedAbTestResponse(test, check) };
    },
  });

const scheduleRoute = (method: 'post' | 'put') =>
  defineRoute({
    method,
    path: '/abtest/schedule',
    operationId: operationIdOf('scheduleAbTest', method),
    summary: 'Schedule a VALIDATED test: its run starts at playTime',
    tag,
    auth: 'account',
    query: abTestQuery,
    responses: { 200: { description: 'The test, SCHEDULED', schema: checkedAbTestSchema }, 404: notFound, 409: wrongState, 422: notValid },
    handler: async ({ query }, ctx) => {
      const { test, check } = await scheduleAbTest(abTestDeps(ctx), ctx.account.id, query.id, query.appId);
      return { status: 200, body: toCheckedAbTestResponse(test, check) };
    },
  });

export const abTestRoutes = [
  defineRoute({
    method: 'post',
    path: '/abtest/create',
    operationId: 'createAbTest',
    summary: 'Create an A/B test of two messages (state NEW)',
    tag,
    auth: 'account',
    body: createAbTestBody,
    responses: { 201: { description: 'The test', schema: abTestSchema }, 404: notFound },
    handler: async ({ body }, { em, account }) => ({ status: 201, body: toAbTestResponse(await createAbTest(em, account.id, body)) }),
  }),
  defineRoute({
    method: 'put',
    path: '/abtest/update',
    operationId: 'updateAbTest',
    summary: 'Change a test; a VALIDATED or SCHEDULED test goes back to NEW and its schedule is withdrawn',
    tag,
    auth: 'account',
    body: updateAbTestBody,
    responses: { 200: { description: 'The test', schema: abTestSchema }, 404: notFound, 409: wrongState },
    handler: async ({ body }, ctx) => {
      const { id, state: _state, ...changes } = body;
      return { status: 200, body: toAbTestResponse(await updateAbTest(abTestDeps(ctx), ctx.account.id, id, changes)) };
    },
  }),
  ...bothMethods.map(validateRoute),
  ...bothMethods.map(scheduleRoute),
  defineRoute({
    method: 'post',
    path: '/abtest/cancel',
    operationId: 'cancelAbTest',
    summary: 'Cancel a test before it completes; a running test stops sending and declares no winner',
    tag,
    auth: 'account',
    query: abTestQuery,
    responses: { 200: { description: 'The test, CANCELLED', schema: abTestSchema }, 404: notFound, 409: wrongState },
    handler: async ({ query }, ctx) => ({ status: 200, body: toAbTestResponse(await cancelAbTestRun(abTestDeps(ctx), ctx.account.id, query.id, query.appId)) }),
  }),
  defineRoute({
    method: 'get',
    path: '/abtest/get',
    operationId: 'getAbTest',
    summary: 'Get a test with its results (live and provisional until it is decided)',
    tag,
    auth: 'account',
    query: abTestIdQuery,
    responses: { 200: { description: 'The test', schema: abTestWithResultsSchema }, 404: notFound },
    handler: async ({ query }, { em, account }) => {
      const test = await findOwnedAbTest(em, account.id, query.id);
      return { status: 200, body: toAbTestWithResults(test, await resultsOf(em, test)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/abtest/list',
    operationId: 'listAbTests',
    summary: 'List an app’s tests, newest first',
    tag,
    auth: 'account',
    query: abTestListQuery,
    responses: { 200: { description: 'One page of tests', schema: abTestPageSchema }, 404: notFound },
    handler: async ({ query }, { em, account }) => {
      const page = await listAbTests(em, account.id, query);
      return { status: 200, body: toPageResponse(page, toAbTestResponse) };
    },
  }),
];
