import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client.ts';

export const sessionKey = ['console-session'] as const;

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
    onSuccess: (session) => {
      queryClient.clear();
      queryClient.setQueryData(sessionKey, { signedIn: true as const, ...session });
    },
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/console/logout')),
    onSuccess: () => {
      queryClient.clear();
      queryClient.setQueryData(sessionKey, { signedIn: false as const });
    },
  });
}
