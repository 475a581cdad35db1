import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schema } from '../../api/client.ts';

export type MessageStatus = Schema<'Notification'>['status'];
export const messageStatuses: MessageStatus[] = ['DRAFT', 'RECORDING', 'READY'];

/** GET /notification/list, newest first, a page of 50 at a time, optionally of one status. */
export function useMessages(status: MessageStatus | undefined) {
  return useInfiniteQuery({
    queryKey: ['messages', { status }],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => unwrap(api.GET('/notification/list', { params: { query: { status, cursor: pageParam, limit: 50 } } })),
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
}

/** GET /notification/get: the message and its send's counts, read again every 2 s while it sends. */
export function useMessage(id: string) {
  return useQuery({
    queryKey: ['message', id],
    queryFn: () => unwrap(api.GET('/notification/get', { params: { query: { id } } })),
    refetchInterval: (query) => (query.state.data?.send.state === 'SENDING' ? 2_000 : false),
  });
}
