import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { PathStep } from '../../sandbox-safe/experiences/run-path.ts';
import type * as RunWorkflow from '../../../workflows/experience-run.contract.ts';
import { z } from 'zod';
import { storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import { Experience } from './experience.ts';
import type { Agrees, SameType } from './same-type.ts';
import { updatedAtProperty } from './updated-at.ts';

export type { PathStep };

export const experienceRunStatuses = ['running', 'completed', 'goal_reached', 'cancelled', 'failed'] as const;
export type ExperienceRunStatus = (typeof experienceRunStatuses)[number];

export const experienceEndReasons = ['completed', 'goal_reached', 'max_duration', 'cancelled', 'failed'] as const;
export type ExperienceEndReason = (typeof experienceEndReasons)[number];

// The run's workflow reports and ends with these (its contract's own types): they must stay the same.
type _StatusesAgree = Agrees<SameType<ExperienceRunStatus, RunWorkflow.ExperienceRunStatus>>;
type _EndReasonsAgree = Agrees<SameType<ExperienceEndReason, RunWorkflow.ExperienceEndReason>>;
/** One step of a run's path: the node, when the run left it, and what happened there. */
const pathStepSchema = z.object({ nodeId: z.string(), type: z.string(), at: z.string(), outcome: z.string() });
// The path is stored as the workflow reports it (src/sandbox-safe's type): the stored shape must stay the same.
type _PathStepsAgree = Agrees<SameType<z.infer<typeof pathStepSchema>, PathStep>>;

/**
 * One person's run through one version of an experience, written by routing when the run is decided and by the
 * run's workflow as it moves. Its id derives from (experience, triggering event), so deciding again finds it.
 * `entryKey` makes the entry rule a constraint as well as a check: `person:<visitorId>` for `never`,
 * `live:<visitorId>` for `after_exit` while the run is live, `event:<eventId>` for anonymous and `always` runs.
 */
export const ExperienceRun = defineEntity({
  name: 'ExperienceRun',
  tableName: 'experience_runs',
  properties: {
    id: p.string().length(40).primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    experienceId: () => p.manyToOne(Experience).mapToPk().fieldName('experience_id'),
    version: p.integer(),
    visitorId: p.uuid().nullable(),
    clientUserId: p.string().length(255).nullable(),
    triggerEventId: p.string().length(40),
    entryKey: p.string().length(300).nullable(),
    runNumber: p.integer(),
    /** Null for a run that ended in routing's first steps: it never needed a workflow (ADR 0066). */
    workflowId: p.string().length(400).nullable(),
    status: p.enum(experienceRunStatuses),
    currentNodeId: p.string().length(64).nullable(),
    path: storedJson(z.array(pathStepSchema)),
    enteredAt: p.datetime(),
    endedAt: p.datetime().nullable(),
    endReason: p.enum(experienceEndReasons).nullable(),
    endDetail: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
  },
  uniques: [{ properties: ['experienceId', 'entryKey'] }],
  indexes: [
    { properties: ['experienceId', 'createdAt', 'id'] },
    { properties: ['experienceId', 'status', 'createdAt', 'id'] },
    { properties: ['experienceId', 'clientUserId', 'createdAt', 'id'] },
    { properties: ['experienceId', 'visitorId'] },
    // Live runs of a person: every routed event looks them up.
    { properties: ['accountId', 'visitorId', 'status'] },
  ],
});

export type ExperienceRun = InferEntity<typeof ExperienceRun>;
