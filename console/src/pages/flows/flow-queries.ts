import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schema } from '../../api/client.ts';

export type Experience = Schema<'Experience'>;
export type ExperienceStatus = Experience['status'];
export type Run = Schema<'ExperienceRun'>;
export type RunStatus = Run['status'];
export type NodeCounts = Schema<'ExperienceNodeCounts'>;

export const experienceStatuses: ExperienceStatus[] = ['draft', 'active', 'paused', 'archived'];
export const runStatuses: RunStatus[] = ['running', 'completed', 'goal_reached', 'cancelled', 'failed'];

/** A status from the address's query, if it is one of the allowed values. */
export function statusFrom<T extends string>(search: string, allowed: readonly T[]): T | undefined {
  const value = new URLSearchParams(search).get('status');
  return allowed.find((status) => status === value);
}

const live = 2_000;

/** GET /accounts/{accountId}/experiences, newest first, 50 at a time. */
export function useExperiences(accountId: string, status: ExperienceStatus | undefined) {
  return useInfiniteQuery({
    queryKey: ['experiences', accountId, { status }],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/accounts/{accountId}/experiences', { params: { path: { accountId }, query: { status, cursor: pageParam, limit: 50 } } })),
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
}

export function useExperience(accountId: string, experienceId: string) {
  return useQuery({
    queryKey: ['experience', accountId, experienceId],
    queryFn: () => unwrap(api.GET('/accounts/{accountId}/experiences/{experienceId}', { params: { path: { accountId, experienceId } } })),
  });
}

/** GET …/node-counts: read again every 2 s, as runs move while the page is open. */
export function useNodeCounts(accountId: string, experienceId: string) {
  return useQuery({
    queryKey: ['experience-node-counts', accountId, experienceId],
    queryFn: () => unwrap(api.GET('/accounts/{accountId}/experiences/{experienceId}/node-counts', { params: { path: { accountId, experienceId } } })),
    refetchInterval: live,
  });
}

/** GET …/runs, newest first, 50 at a time, of one status and one person when given. */
export function useRuns(accountId: string, experienceId: string, filter: { status: RunStatus | undefined; clientUserId: string | undefined }) {
  return useInfiniteQuery({
    queryKey: ['experience-runs', accountId, experienceId, filter],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/accounts/{accountId}/experiences/{experienceId}/runs', {
          params: { path: { accountId, experienceId }, query: { ...filter, cursor: pageParam, limit: 50 } },
        }),
      ),
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
}

/** GET …/runs/{runId}: read again every 2 s while the run is live. */
export function useRun(accountId: string, experienceId: string, runId: string) {
  return useQuery({
    queryKey: ['experience-run', accountId, experienceId, runId],
    queryFn: () => unwrap(api.GET('/accounts/{accountId}/experiences/{experienceId}/runs/{runId}', { params: { path: { accountId, experienceId, runId } } })),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? live : false),
  });
}
