import { useId } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { useSession } from '../../session/use-session.ts';
import { abTestStates, useAbTests, useApps, type AbTestState } from './abtest-queries.ts';

/** The app and state filters from the address, so a filtered list can be linked to. */
function filtersFromSearch(search: string): { appId: string | undefined; state: AbTestState | undefined } {
  const params = new URLSearchParams(search);
  return { appId: params.get('appId') ?? undefined, state: abTestStates.find((state) => state === params.get('state')) };
}

const addressOf = (appId: string | undefined, state: string | undefined) => {
  const params = new URLSearchParams();
  if (appId) params.set('appId', appId);
  if (state) params.set('state', state);
  return params.size ? `/abtests?${params}` : '/abtests';
};

/** An app's A/B tests, newest first, by state; the first app's until another is picked. */
export default function AbTestsPage() {
  useDocumentTitle('A/B tests');
  const session = useSession();
  const accountId = session.data?.signedIn ? session.data.accountId : '';
  const apps = useApps(accountId);
  const filters = filtersFromSearch(useSearch());
  const appId = filters.appId ?? apps.data?.items[0]?.appId;
  const tests = useAbTests(appId, filters.state);
  const [, navigate] = useLocation();
  const ids = { app: useId(), state: useId() };
  const query = new URLSearchParams({ ...(appId && { appId }), ...(filters.state && { state: filters.state }) });

  return (
    <>
      <h1>A/B tests</h1>
      <form className="filters" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor={ids.app}>App</label>
        <select id={ids.app} value={appId ?? ''} onChange={(event) => navigate(addressOf(event.target.value, filters.state))}>
          {apps.data?.items.map((app) => (
            <option key={app.appId} value={app.appId}>
              {app.name}
            </option>
          ))}
        </select>
        <label htmlFor={ids.state}>State</label>
        <select id={ids.state} value={filters.state ?? ''} onChange={(event) => navigate(addressOf(appId, event.target.value))}>
          <option value="">All states</option>
          {abTestStates.map((state) => (
            <option key={state} value={state}>
              {state}
            </option>
          ))}
        </select>
        <CopyAsCurl request={{ method: 'GET', path: `/abtest/list?${query}` }} />
      </form>
      {apps.error && <ErrorMessage error={apps.error} />}
      {tests.error && <ErrorMessage error={tests.error} />}
      {(apps.isPending || (appId && tests.isPending)) && <p role="status">Loading A/B tests…</p>}
      {apps.data?.items.length === 0 && <p>No app yet, so no A/B test.</p>}
      {tests.data?.items.length === 0 && <p>No A/B tests{filters.state ? ` in state ${filters.state}` : ''} in this app yet.</p>}
      {tests.data && tests.data.items.length > 0 && (
        <table className="list">
          <caption>{filters.state ? `${filters.state} A/B tests` : 'All A/B tests'} of the app, newest first (at most 100)</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">Decided by</th>
              <th scope="col">Winner</th>
              <th scope="col">Play time</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {tests.data.items.map((test) => (
              <tr key={test.id}>
                <th scope="row">
                  <Link href={`/abtests/${test.id}`}>{test.abTestName}</Link>
                </th>
                <td>{test.state}</td>
                <td>{test.winnerMetric === 'ctr' ? 'Clicks' : 'Conversions'}</td>
                <td>{test.winner ?? '—'}</td>
                <td>{test.playTime ?? '—'}</td>
                <td>{formatTime(test.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
