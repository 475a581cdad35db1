import { useId, type ReactNode } from 'react';
import { useLocation, useSearch } from 'wouter';
import { ErrorMessage } from '../../components/error-message.tsx';
import { useAccountId } from '../../session/use-account-id.ts';
import { useApps } from '../settings/settings-queries.ts';

/**
 * The app whose audience is shown, chosen in the address (`?app=`) so a view can be linked to; the account's first
 * app until one is chosen. Renders its picker, and its children with the chosen app.
 */
export function AppPicker({ children }: { children: (appId: string) => ReactNode }) {
  const accountId = useAccountId();
  const apps = useApps(accountId);
  const [location, navigate] = useLocation();
  const chosen = new URLSearchParams(useSearch()).get('app');
  const pickerId = useId();
  if (apps.error) return <ErrorMessage error={apps.error} />;
  if (!apps.data) return <p role="status">Loading the apps…</p>;
  const items = apps.data.items;
  const appId = items.find((app) => app.appId === chosen)?.appId ?? items[0]?.appId;
  if (!appId) return <p>The account has no app yet.</p>;
  return (
    <>
      <form className="filters" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor={pickerId}>App</label>
        <select id={pickerId} value={appId} onChange={(event) => navigate(`${location}?app=${event.target.value}`)}>
          {items.map((app) => (
            <option key={app.appId} value={app.appId}>
              {app.name}
            </option>
          ))}
        </select>
      </form>
      {children(appId)}
    </>
  );
}
