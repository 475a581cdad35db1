import { useSession } from './use-session.ts';

/** The signed-in account's id, for the routes under /accounts/{accountId}: pages render only inside a session. */
export function useAccountId(): string {
  const session = useSession();
  if (!session.data?.signedIn) throw new Error('useAccountId needs a signed-in session');
  return session.data.accountId;
}

/** Where the service's Temporal UI is (TEMPORAL_UI_URL), if it says. */
export function useTemporalUi(): { url: string; namespace: string } | null {
  const session = useSession();
  return session.data?.signedIn ? session.data.temporalUi : null;
}
