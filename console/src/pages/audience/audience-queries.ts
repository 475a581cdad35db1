import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schema } from '../../api/client.ts';

export type InboundEventStatus = Schema<'InboundEvent'>['status'];

/** GET /device/list?appId=: the app's devices, newest first, 50 at a time. */
export function useDevices(appId: string) {
  return useInfiniteQuery({
    queryKey: ['devices', appId],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => unwrap(api.GET('/device/list', { params: { query: { appId, cursor: pageParam, limit: 50 } } })),
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
}

/** GET /filter/list?appId=: the app's segments (their sizes are counted one by one, on the segment's page). */
export function useSegments(appId: string) {
  return useQuery({
    queryKey: ['segments', appId],
    queryFn: () => unwrap(api.GET('/filter/list', { params: { query: { appId, limit: 100 } } })),
  });
}

export function useSegment(id: string) {
  return useQuery({ queryKey: ['segment', id], queryFn: () => unwrap(api.GET('/filter/get', { params: { query: { id } } })) });
}

/** GET /filter/sample: the segment's live size and its first devices, read again every 5 s while the page is open. */
export function useSegmentSample(id: string) {
  return useQuery({
    queryKey: ['segment-sample', id],
    queryFn: () => unwrap(api.GET('/filter/sample', { params: { query: { id, limit: 10 } } })),
    refetchInterval: 5_000,
  });
}

/** GET /accounts/{accountId}/events?status=: ingested events in one state, newest first, 50 at a time. */
export function useInboundEvents(accountId: string, status: InboundEventStatus | undefined) {
  return useInfiniteQuery({
    queryKey: ['inbound-events', accountId, { status }],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/accounts/{accountId}/events', { params: { path: { accountId }, query: { status, cursor: pageParam, limit: 50 } } })),
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
}
