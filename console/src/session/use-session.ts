import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schema } from '../api/client.ts';

export const sessionKey = ['console-session'] as const;

type SessionState = Schema<'ConsoleSessionState'>;

/**
 * A new session (or none): nothing read for the one before may show, so every other query is dropped, and the
 * session's own is set in place, where the pages observing it see the change.
 */
function switchAccount(queryClient: QueryClient, session: SessionState): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionKey[0] });
  queryClient.setQueryData(sessionKey, session);
}

/** Whether the console is signed in, and as which account: GET /console/session, read again after any 401. */
export function useSession() {
  return useQuery({
    queryKey: sessionKey,
    queryFn: () => unwrap(api.GET('/console/session')),
    staleTime: Infinity,
  });
}

/** Signs in with the key, which is posted once and kept nowhere: the session cookie stands for it from then on. */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (apiKey: string) => unwrap(api.POST('/console/session', { body: { apiKey } })),
    onSuccess: (session) => switchAccount(queryClient, { signedIn: true, ...session }),
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/console/logout')),
    onSuccess: () => switchAccount(queryClient, { signedIn: false }),
  });
}
