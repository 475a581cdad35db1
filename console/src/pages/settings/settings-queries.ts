import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schema } from '../../api/client.ts';

export type App = Schema<'App'>;
export type AppChanges = Schema<'UpdateApp'>;
export type NewEndpoint = Schema<'CreateEndpoint'>;
export type NewConnection = Schema<'CreateConnection'>;

const account = (accountId: string) => ({ path: { accountId } });

/** GET /accounts/{accountId}/apps: the account's apps (a page of 100; an account has a handful). */
export function useApps(accountId: string) {
  return useQuery({
    queryKey: ['apps', accountId],
    queryFn: () => unwrap(api.GET('/accounts/{accountId}/apps', { params: { ...account(accountId), query: { limit: 100 } } })),
  });
}

export function useUpdateApp(accountId: string, appId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: AppChanges) => unwrap(api.PATCH('/accounts/{accountId}/apps/{appId}', { params: { path: { accountId, appId } }, body: changes })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['apps', accountId] }),
  });
}

export function useEndpoints(accountId: string) {
  return useQuery({
    queryKey: ['endpoints', accountId],
    queryFn: () => unwrap(api.GET('/accounts/{accountId}/endpoints', { params: account(accountId) })),
  });
}

export function useEventTypes() {
  return useQuery({ queryKey: ['event-types'], queryFn: () => unwrap(api.GET('/event-types')), staleTime: Infinity });
}

export function useCreateEndpoint(accountId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (endpoint: NewEndpoint) => unwrap(api.POST('/accounts/{accountId}/endpoints', { params: account(accountId), body: endpoint })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['endpoints', accountId] }),
  });
}

export function useConnections(accountId: string) {
  return useQuery({
    queryKey: ['connections', accountId],
    queryFn: () => unwrap(api.GET('/accounts/{accountId}/connections', { params: account(accountId) })),
  });
}

export function useCreateConnection(accountId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (connection: NewConnection) => unwrap(api.POST('/accounts/{accountId}/connections', { params: account(accountId), body: connection })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['connections', accountId] }),
  });
}
