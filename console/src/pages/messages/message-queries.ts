import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schema } from '../../api/client.ts';

export type MessageStatus = Schema<'Notification'>['status'];
export const messageStatuses: MessageStatus[] = ['DRAFT', 'RECORDING', 'READY'];

export type Message = Schema<'NotificationWithSend'>;
export type SendState = Message['send']['state'];

/** A send that is still to go or going: its figures move, so the page reads them again every 2 s. */
export const isSendLive = (state: SendState | undefined) => state === 'SCHEDULED' || state === 'SENDING' || state === 'WAITING_FOR_RECORDING';

/** What can still be cancelled: a send that has not finished. */
export const isSendCancellable = isSendLive;

/** Every 2 s while the send is live; every 15 s once it is done, for clicks and conversions, which keep coming. */
const pollInterval = (state: SendState | undefined) => (isSendLive(state) ? 2_000 : state === 'SENT' ? 15_000 : false);

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
    refetchInterval: (query) => pollInterval(query.state.data?.send.state),
  });
}

/** GET /file/get: the recording's file, for its waveform (200 peaks). */
export function useRecordingFile(fileId: string | null | undefined) {
  return useQuery({
    queryKey: ['file', fileId],
    queryFn: () => unwrap(api.GET('/file/get', { params: { query: { id: fileId! } } })),
    enabled: Boolean(fileId),
    staleTime: Infinity,
  });
}

/** GET /filter/list: the app's segments, for the schedule form. */
export function useSegments(appId: string) {
  return useQuery({
    queryKey: ['segments', appId],
    queryFn: () => unwrap(api.GET('/filter/list', { params: { query: { appId, limit: 100 } } })),
  });
}

/** Pages of pushes read for the chart at most: a very large send's chart shows its latest pushes, and says so. */
export const maxPushPages = 20;

/**
 * GET /push/sends?status=sent, newest first, up to `maxPushPages` pages of 100: when each push was sent. Read again
 * when the send's `sent` count changes (the message is polled), showing the last answer meanwhile.
 */
export function useSentPushes(notificationId: string, sentCount: number) {
  return useQuery({
    queryKey: ['sent-pushes', notificationId, sentCount],
    queryFn: async () => {
      const sentAt: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await unwrap(api.GET('/push/sends', { params: { query: { notificationId, status: 'sent', limit: 100, cursor } } }));
        for (const push of page.items) if (push.sentAt && push.source === 'campaign') sentAt.push(push.sentAt);
        cursor = page.nextCursor ?? undefined;
        pages += 1;
      } while (cursor && pages < maxPushPages);
      return { sentAt, complete: cursor === undefined };
    },
    placeholderData: keepPreviousData,
  });
}

/** A change to the message's send: the message is read again at once after it. */
function useSendChange<Input, Output>(id: string, change: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['message', id] }),
  });
}

export type ScheduleBody = Schema<'ScheduleNotification'>;

export const useScheduleSend = (message: Message) =>
  useSendChange(message.id, (body: ScheduleBody) =>
    unwrap(api.POST('/notification/schedule', { params: { query: { id: message.id, appId: message.appId } }, body })),
  );

export const useCancelSend = (message: Message) =>
  useSendChange(message.id, () => unwrap(api.POST('/notification/cancel', { params: { query: { id: message.id, appId: message.appId } } })));

export const useTestSend = (message: Message) =>
  useSendChange(message.id, (deviceIds: string[]) =>
    unwrap(api.POST('/notification/test', { params: { query: { id: message.id, appId: message.appId } }, body: { deviceIds } })),
  );
