import { archiveExperience, changeExperienceStatus } from '../../domain/experiences/change-experience-status.ts';
import { cancelExperienceRun } from '../../domain/experiences/cancel-experience-run.ts';
import { countExperienceNodes } from '../../domain/experiences/count-experience-nodes.ts';
import { createExperience } from '../../domain/experiences/create-experience.ts';
import { findOwnedExperience, findOwnedRun } from '../../domain/experiences/find-owned-experience.ts';
import { listExperienceRuns, listExperiences } from '../../domain/experiences/list-experiences.ts';
import { publishExperience } from '../../domain/experiences/publish-experience.ts';
import { updateExperience } from '../../domain/experiences/update-experience.ts';
import { defineRoute } from '../../http/route.ts';
import { pageOf, accountIdParam, toPageResponse } from '../shared-schemas.ts';
import {
  createExperienceBody,
  experienceListQuery,
  experienceParams,
  experienceSchema,
  nodeCountsQuery,
  nodeCountsSchema,
  runListQuery,
  runParams,
  runSchema,
  toExperienceResponse,
  toRunResponse,
  updateExperienceBody,
} from './schemas.ts';

const tag = 'Experiences';
const base = '/accounts/:accountId/experiences';
const one = `${base}/:experienceId`;
const notFound = { description: 'No such experience in this account' };
const wrongState = { description: 'Not allowed in the experience’s (or run’s) status (`invalid_state`)' };
const experienceAnswer = (description: string) => ({ 200: { description, schema: experienceSchema }, 404: notFound, 409: wrongState });

/** pause and resume share a shape: POST …/{experienceId}/<action>, answering the experience. */
const statusRoute = (action: 'pause' | 'resume', summary: string) =>
  defineRoute({
    method: 'post',
    path: `${one}/${action}`,
    operationId: `${action}Experience`,
    summary,
    tag,
    auth: 'account',
    params: experienceParams,
    responses: experienceAnswer('The experience'),
    handler: async ({ params }, { em, account }) => ({
      status: 200,
      body: toExperienceResponse(await changeExperienceStatus(em, account.id, params.experienceId, action)),
    }),
  });

export const experienceRoutes = [
  defineRoute({
    method: 'post',
    path: base,
    operationId: 'createExperience',
    summary: 'Create a draft experience (flow)',
    tag,
    auth: 'account',
    params: accountIdParam,
    body: createExperienceBody,
    responses: { 201: { description: 'The draft: status draft, version null', schema: experienceSchema } },
    handler: async ({ body }, { em, account }) => ({ status: 201, body: toExperienceResponse(await createExperience(em, account.id, body)) }),
  }),
  defineRoute({
    method: 'get',
    path: base,
    operationId: 'listExperiences',
    summary: 'List the account’s experiences, newest first',
    tag,
    auth: 'account',
    params: accountIdParam,
    query: experienceListQuery,
    responses: { 200: { description: 'One page of experiences', schema: pageOf(experienceSchema).meta({ id: 'ExperiencePage' }) } },
    handler: async ({ query }, { em, account }) => {
      const page = await listExperiences(em, account.id, query);
      return { status: 200, body: toPageResponse(page, toExperienceResponse) };
    },
  }),
  defineRoute({
    method: 'get',
    path: one,
    operationId: 'getExperience',
    summary: 'Get one experience: its latest definition, status and published version',
    tag,
    auth: 'account',
    params: experienceParams,
    responses: { 200: { description: 'The experience', schema: experienceSchema }, 404: notFound },
    handler: async ({ params }, { em, account }) => ({
      status: 200,
      body: toExperienceResponse(await findOwnedExperience(em, account.id, params.experienceId)),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: one,
    operationId: 'updateExperience',
    summary: 'Change the name or the definition; the change takes effect at the next publish',
    tag,
    auth: 'account',
    params: experienceParams,
    body: updateExperienceBody,
    responses: experienceAnswer('The experience as changed'),
    handler: async ({ params, body }, { em, account }) => ({
      status: 200,
      body: toExperienceResponse(await updateExperience(em, account.id, params.experienceId, body)),
    }),
  }),
  defineRoute({
    method: 'post',
    path: `${one}/publish`,
    operationId: 'publishExperience',
    summary: 'Check the definition, freeze it as the next version and make the experience active',
    tag,
    auth: 'account',
    params: experienceParams,
    responses: { ...experienceAnswer('The experience, active, with its new version'), 400: { description: 'The definition fails a publish check (`validation_failed`, every problem in details)' } },
    handler: async ({ params }, { em, account }) => ({
      status: 200,
      body: toExperienceResponse(await publishExperience(em, account.id, params.experienceId)),
    }),
  }),
  statusRoute('pause', 'Pause: no new entries; live runs go on'),
  statusRoute('resume', 'Resume a paused experience'),
  defineRoute({
    method: 'post',
    path: `${one}/archive`,
    operationId: 'archiveExperience',
    summary: 'Archive: no new entries, and every live run is cancelled (reason cancelled)',
    tag,
    auth: 'account',
    params: experienceParams,
    responses: { 200: { description: 'The experience, archived; its live runs end shortly after', schema: experienceSchema }, 404: notFound },
    handler: async ({ params }, { em, account, services }) => ({
      status: 200,
      body: toExperienceResponse(await archiveExperience({ em, temporal: services.temporal }, account.id, params.experienceId)),
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${one}/runs`,
    operationId: 'listExperienceRuns',
    summary: 'List the runs of an experience, newest first',
    tag,
    auth: 'account',
    params: experienceParams,
    query: runListQuery,
    responses: { 200: { description: 'One page of runs', schema: pageOf(runSchema).meta({ id: 'ExperienceRunPage' }) }, 404: notFound },
    handler: async ({ params, query }, { em, account }) => {
      const page = await listExperienceRuns(em, account.id, params.experienceId, query);
      return { status: 200, body: toPageResponse(page, toRunResponse) };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${one}/node-counts`,
    operationId: 'countExperienceNodes',
    summary: 'Count the runs at each node: entered, waiting, passed, stopped there, reached a goal',
    tag,
    auth: 'account',
    params: experienceParams,
    query: nodeCountsQuery,
    responses: { 200: { description: 'Each node’s and goal’s counts', schema: nodeCountsSchema }, 404: notFound },
    handler: async ({ params, query }, { em, account }) => ({
      status: 200,
      body: { experienceId: params.experienceId, ...(await countExperienceNodes(em, account.id, params.experienceId, query.version)) },
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${one}/runs/:runId`,
    operationId: 'getExperienceRun',
    summary: 'Get one run, with its path',
    tag,
    auth: 'account',
    params: runParams,
    responses: { 200: { description: 'The run', schema: runSchema }, 404: { description: 'No such run of this experience' } },
    handler: async ({ params }, { em, account }) => ({
      status: 200,
      body: toRunResponse(await findOwnedRun(em, account.id, params.experienceId, params.runId)),
    }),
  }),
  defineRoute({
    method: 'post',
    path: `${one}/runs/:runId/cancel`,
    operationId: 'cancelExperienceRun',
    summary: 'End one live run (reason cancelled)',
    tag,
    auth: 'account',
    params: runParams,
    responses: { 200: { description: 'The run as it ended', schema: runSchema }, 404: { description: 'No such run of this experience' }, 409: wrongState },
    handler: async ({ params }, { em, account, services }) => ({
      status: 200,
      body: toRunResponse(await cancelExperienceRun({ em, temporal: services.temporal }, account.id, params.experienceId, params.runId)),
    }),
  }),
];
