import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { abTestResultsSchema, winnerMetrics } from '../../domain/abtests/results-types.ts';
import { storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import type * as AbTestWorkflow from '../../../workflows/ab-test.contract.ts';
import { App } from './app.ts';
import type { Agrees, SameType } from './same-type.ts';
import { updatedAtProperty } from './updated-at.ts';

export const abTestStates = ['NEW', 'VALIDATED', 'SCHEDULED', 'RUNNING', 'COMPLETED', 'CANCELLED', 'FAILED'] as const;
export type AbTestState = (typeof abTestStates)[number];
// The test's workflow reports the same states (its contract's own type).
type _StatesAgree = Agrees<SameType<AbTestState, AbTestWorkflow.AbTestState>>;

/**
 * An A/B test of two messages of an app on a segment of its devices. The API moves it NEW → VALIDATED → SCHEDULED;
 * from then on its workflow `abtest:<id>` owns it (RUNNING, COMPLETED, FAILED), and cancelling goes through it.
 * `results` is written once, when the test is decided; until then results are counted live.
 */
export const AbTest = defineEntity({
  name: 'AbTest',
  tableName: 'ab_tests',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    appId: () => p.manyToOne(App).mapToPk().fieldName('app_id'),
    name: p.string().length(200),
    description: p.text().nullable(),
    filterId: p.string().length(64).nullable(),
    templateIdA: p.uuid().nullable(),
    templateIdB: p.uuid().nullable(),
    state: p.enum(abTestStates),
    playTime: p.datetime().nullable(),
    /** The UTC offset the client wrote playTime in, in minutes, so it is answered the same way. */
    playTimeOffsetMinutes: p.integer(),
    expiry: p.integer(),
    testPercent: p.integer(),
    audienceSize: p.integer().nullable(),
    results: storedJson(abTestResultsSchema).nullable(),
    winner: p.string().length(1).nullable(),
    /** What decides the winner: click-through rate, or the messages' conversion rate. */
    winnerMetric: p.enum(winnerMetrics).default('ctr').fieldName('winner_metric'),
    failureReason: p.text().nullable(),
    startedAt: p.datetime().nullable(),
    decidedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
  },
  indexes: [{ properties: ['appId', 'createdAt', 'id'] }, { properties: ['appId', 'state', 'createdAt', 'id'] }],
});

export type AbTest = InferEntity<typeof AbTest>;
