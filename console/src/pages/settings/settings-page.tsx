import './settings.css';
import { ErrorMessage } from '../../components/error-message.tsx';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { useAccountId } from '../../session/use-account-id.ts';
import { AppForm } from './app-form.tsx';
import { ConnectionsSection } from './connections-section.tsx';
import { EndpointsSection } from './endpoints-section.tsx';
import { useApps } from './settings-queries.ts';

function AppsSection({ accountId }: { accountId: string }) {
  const apps = useApps(accountId);
  return (
    <section aria-labelledby="settings-apps">
      <h2 id="settings-apps">Apps</h2>
      {apps.error && <ErrorMessage error={apps.error} />}
      {apps.isPending && <p role="status">Loading the apps…</p>}
      {apps.data?.items.map((app) => (
        <AppForm key={app.appId} accountId={accountId} app={app} />
      ))}
    </section>
  );
}

/** The account's settings: each app's delivery rules, the webhook endpoints, and the connections events come in by. */
export default function SettingsPage() {
  useDocumentTitle('Settings');
  const accountId = useAccountId();
  return (
    <>
      <h1>Settings</h1>
      <AppsSection accountId={accountId} />
      <EndpointsSection accountId={accountId} />
      <ConnectionsSection accountId={accountId} />
    </>
  );
}
