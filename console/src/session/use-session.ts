import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, isUnauthorized, unwrap } from '../api/client.ts';

export const sessionKey = ['console-session'] as const;

/** Whom the console is signed in as: the session's account, `null` when signed out. */
export function useSession() {
  return useQuery({
    queryKey: sessionKey,
    queryFn: async () => {
      try {
        return await unwrap(api.GET('/console/session'));
      } catch (error) {
        if (isUnauthorized(error)) return null;
        throw error;
      }
    },
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
      queryClient.setQueryData(sessionKey, session);
    },
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/console/logout')),
    onSuccess: () => {
      queryClient.clear();
      queryClient.setQueryData(sessionKey, null);
    },
  });
}
