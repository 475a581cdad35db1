import { z } from 'zod';
import { experienceDefinitionSchema } from '../../domain/experiences/definition-schema.ts';
import { experienceStatuses, type Experience } from '../../persistence/entities/experience.ts';
import { experienceEndReasons, experienceRunStatuses, type ExperienceRun } from '../../persistence/entities/experience-run.ts';
import { paginationQuery, timestamp } from '../shared-schemas.ts';

const experienceId = z.string().min(1).max(64).meta({ example: 'exp_Qm3…' });
const name = z.string().trim().min(1).max(200);

export const experienceParams = z.object({ accountId: z.uuid(), experienceId });
export const runParams = experienceParams.extend({ runId: z.string().min(1).max(64) });

export const createExperienceBody = z
  .strictObject({
    name: name.optional().meta({ description: 'Defaults to the definition’s name; the two are kept the same.' }),
    definition: experienceDefinitionSchema,
  })
  .meta({ id: 'CreateExperience' });

export const updateExperienceBody = z
  .strictObject({ name: name.optional(), definition: experienceDefinitionSchema.optional() })
  .refine((changes) => changes.name !== undefined || changes.definition !== undefined, 'send name or definition')
  .meta({ id: 'UpdateExperience' });

export const experienceListQuery = z.object({ status: z.enum(experienceStatuses).optional(), ...paginationQuery });
export const runListQuery = z.object({
  status: z.enum(experienceRunStatuses).optional(),
  clientUserId: z.string().min(1).max(255).optional(),
  ...paginationQuery,
});

export const experienceSchema = z
  .object({
    experienceId,
    accountId: z.uuid(),
    name: z.string(),
    status: z.enum(experienceStatuses),
    version: z.number().int().nullable().meta({ description: 'The latest published version; null while never published.' }),
    definition: experienceDefinitionSchema.meta({ description: 'The latest definition; it takes effect at the next publish.' }),
    publishedAt: timestamp.nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Experience' });

export const runSchema = z
  .object({
    runId: z.string(),
    experienceId,
    version: z.number().int(),
    visitorId: z.uuid().nullable(),
    clientUserId: z.string().nullable(),
    status: z.enum(experienceRunStatuses),
    currentNodeId: z.string().nullable(),
    enteredAt: timestamp,
    endedAt: timestamp.nullable(),
    endReason: z.enum(experienceEndReasons).nullable(),
    endDetail: z.string().nullable(),
    path: z.array(z.object({ nodeId: z.string(), type: z.string(), at: timestamp, outcome: z.string() })).meta({ description: 'Oldest first.' }),
    workflowId: z
      .string()
      .nullable()
      .meta({
        description:
          'experience:<experienceId>:<visitorId>[:<n>], or experience:<experienceId>:event:<eventId> when anonymous; null for a run that reached its exit without waiting: routing took its steps when it entered, and it never needed a workflow',
      }),
  })
  .meta({ id: 'ExperienceRun' });

export const nodeCountsQuery = z.object({
  version: z.coerce.number().int().min(1).max(2_147_483_647).optional().meta({ description: 'Count the runs of this version only; every version when left out.' }),
});

const count = z.number().int().min(0);

export const nodeCountsSchema = z
  .object({
    experienceId,
    version: z.number().int().nullable().meta({ description: 'The version counted; null for every version.' }),
    runs: count.meta({ description: 'Runs counted.' }),
    nodes: z
      .array(
        z.object({
          nodeId: z.string(),
          entered: count.meta({ description: 'Runs that reached the node: passed + waiting + stoppedHere.' }),
          waiting: count.meta({ description: 'Live runs at the node now.' }),
          passed: count.meta({ description: 'Runs that left the node (its step is in their path).' }),
          stoppedHere: count.meta({ description: 'Runs that ended at the node without leaving it (cancelled, an exit goal, the maximum duration, a failure).' }),
          goalReached: count.meta({ description: 'Runs that reached the node and reached a goal.' }),
        }),
      )
      .meta({ description: 'The latest definition’s nodes in its order, then any node only older versions had.' }),
    goals: z.array(z.object({ goalId: z.string(), reached: count })),
  })
  .meta({ id: 'ExperienceNodeCounts' });

export const toExperienceResponse = (experience: Experience): z.infer<typeof experienceSchema> => ({
  experienceId: experience.id,
  accountId: experience.accountId,
  name: experience.name,
  status: experience.status,
  version: experience.version ?? null,
  definition: experience.definition,
  publishedAt: experience.publishedAt?.toISOString() ?? null,
  createdAt: experience.createdAt.toISOString(),
  updatedAt: experience.updatedAt.toISOString(),
});

export const toRunResponse = (run: ExperienceRun): z.infer<typeof runSchema> => ({
  runId: run.id,
  experienceId: run.experienceId,
  version: run.version,
  visitorId: run.visitorId ?? null,
  clientUserId: run.clientUserId ?? null,
  status: run.status,
  currentNodeId: run.currentNodeId ?? null,
  enteredAt: run.enteredAt.toISOString(),
  endedAt: run.endedAt?.toISOString() ?? null,
  endReason: run.endReason ?? null,
  endDetail: run.endDetail ?? null,
  path: run.path,
  workflowId: run.workflowId ?? null,
});
