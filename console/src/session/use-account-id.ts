import { useSession } from './use-session.ts';

/** The signed-in account's id, for the routes under /accounts/{accountId}: pages render only inside a session. */
export function useAccountId(): string {
  const session = useSession();
  if (!session.data?.signedIn) throw new Error('useAccountId needs a signed-in session');
  return session.data.accountId;
}
