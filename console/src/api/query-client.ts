import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError, isUnauthorized } from './client.ts';
import { sessionKey } from '../session/use-session.ts';

/**
 * TanStack Query for every read. An answer of 401 anywhere means the session ended (signed out elsewhere, or past its
 * 12 h): the session is read again, and the sign-in form takes the page's place. A 4xx is never retried.
 */
export function createQueryClient(): QueryClient {
  const sessionMayHaveEnded = (error: Error) => {
    if (isUnauthorized(error)) void client.invalidateQueries({ queryKey: sessionKey });
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (query.queryKey[0] !== sessionKey[0]) sessionMayHaveEnded(error);
      },
    }),
    mutationCache: new MutationCache({ onError: sessionMayHaveEnded }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
      },
    },
  });
  return client;
}
