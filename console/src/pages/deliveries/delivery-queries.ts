import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schema } from '../../api/client.ts';

export type Endpoint = Schema<'Endpoint'>;
export type Delivery = Schema<'DeliveryWithAttempts'>;
export type DeliveryStatus = Delivery['status'];
export const deliveryStatuses: DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

export function useEndpoints(accountId: string) {
  return useQuery({
    queryKey: ['endpoints', accountId],
    queryFn: () => unwrap(api.GET('/accounts/{accountId}/endpoints', { params: { path: { accountId } } })),
  });
}

export function useEndpoint(accountId: string, endpointId: string) {
  return useQuery({
    queryKey: ['endpoint', accountId, endpointId],
    queryFn: () => unwrap(api.GET('/accounts/{accountId}/endpoints/{endpointId}', { params: { path: { accountId, endpointId } } })),
  });
}

const deliveriesKey = (accountId: string, endpointId: string) => ['deliveries', accountId, endpointId];

/** GET …/deliveries, newest first, 50 at a time; read again every 2 s while one is pending. */
export function useDeliveries(accountId: string, endpointId: string, status: DeliveryStatus | undefined) {
  return useInfiniteQuery({
    queryKey: [...deliveriesKey(accountId, endpointId), { status }],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/accounts/{accountId}/endpoints/{endpointId}/deliveries', {
          params: { path: { accountId, endpointId }, query: { status, cursor: pageParam, limit: 50 } },
        }),
      ),
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    refetchInterval: (query) => (query.state.data?.pages.some((page) => page.items.some((item) => item.status === 'pending')) ? 2_000 : false),
  });
}

/** A change to the endpoint's deliveries: the list is read again once it is made (and every 2 s while one is pending). */
function useDeliveryChange<Input, Output>(accountId: string, endpointId: string, change: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: deliveriesKey(accountId, endpointId) }),
  });
}

export const useRedeliver = (accountId: string, endpointId: string) =>
  useDeliveryChange(accountId, endpointId, (deliveryId: string) =>
    unwrap(api.POST('/accounts/{accountId}/deliveries/{deliveryId}/redeliver', { params: { path: { accountId, deliveryId } } })),
  );

export const useRecover = (accountId: string, endpointId: string) =>
  useDeliveryChange(accountId, endpointId, (since: string) =>
    unwrap(api.POST('/accounts/{accountId}/endpoints/{endpointId}/recover', { params: { path: { accountId, endpointId } }, body: { since } })),
  );

export const useSendTestEvent = (accountId: string, endpointId: string) =>
  useDeliveryChange(accountId, endpointId, () =>
    unwrap(api.POST('/accounts/{accountId}/endpoints/{endpointId}/test', { params: { path: { accountId, endpointId } } })),
  );
