import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schema } from '../../api/client.ts';

export type AbTest = Schema<'AbTest'>;
export type AbTestState = AbTest['state'];

export const abTestStates: AbTestState[] = ['NEW', 'VALIDATED', 'SCHEDULED', 'RUNNING', 'COMPLETED', 'CANCELLED', 'FAILED'];

/**
 * `results.significance` as the API documents it (docs/abtests.md, "States"): the OpenAPI document leaves its shape
 * open, so the console names it here.
 */
export interface Significance {
  test: 'two-proportion-z' | 'fisher-exact';
  z?: number;
  pValue: number;
  significant: boolean;
  /** 95% interval of rateB − rateA; null with Fisher's test. */
  ci95: [number, number] | null;
  /** (rateB − rateA) / rateA; null when rateA is 0 or an arm has no sends. */
  lift: number | null;
}

/** `results.srm`: the sample-ratio check of the sends to A and B. */
export interface SampleRatioCheck {
  chiSquare: number | null;
  pValue: number | null;
  mismatch: boolean;
  reason?: string;
}

export const significanceOf = (results: AbTestResults) => results.significance as Significance;
export const srmOf = (results: AbTestResults) => results.srm as SampleRatioCheck;

/** A test still moving: its results are read again every 2 s. */
export const isTestLive = (state: AbTestState | undefined) => state === 'SCHEDULED' || state === 'RUNNING';

/** GET /abtest/get: the test and its results (provisional until decided), every 2 s while it runs. */
export function useAbTest(id: string) {
  return useQuery({
    queryKey: ['abtest', id],
    queryFn: () => unwrap(api.GET('/abtest/get', { params: { query: { id } } })),
    refetchInterval: (query) => (isTestLive(query.state.data?.state) ? 2_000 : false),
  });
}

/** GET /accounts/{accountId}/apps: the account's apps, for the A/B test list (tests are listed by app). */
export function useApps(accountId: string) {
  return useQuery({
    queryKey: ['apps', accountId],
    queryFn: () => unwrap(api.GET('/accounts/{accountId}/apps', { params: { path: { accountId }, query: { limit: 100 } } })),
  });
}

/** GET /abtest/list: an app's tests, newest first, optionally of one state. */
export function useAbTests(appId: string | undefined, state: AbTestState | undefined) {
  return useQuery({
    queryKey: ['abtests', appId, { state }],
    queryFn: () => unwrap(api.GET('/abtest/list', { params: { query: { appId: appId!, state, limit: 100 } } })),
    enabled: Boolean(appId),
  });
}

/** The test as GET /abtest/get answers it (as the client types it: intervals as number arrays). */
export type AbTestWithResults = NonNullable<ReturnType<typeof useAbTest>['data']>;
export type AbTestResults = NonNullable<AbTestWithResults['results']>;
export type Arm = AbTestResults['arms']['A'];
