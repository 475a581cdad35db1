import { useId } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { useAccountId } from '../../session/use-account-id.ts';
import { experienceStatuses, statusFrom, useExperiences } from './flow-queries.ts';

/** The account's flows (the API's experiences), newest first, by status: the status is in the address. */
export default function FlowsPage() {
  useDocumentTitle('Flows');
  const accountId = useAccountId();
  const status = statusFrom(useSearch(), experienceStatuses);
  const [, navigate] = useLocation();
  const flows = useExperiences(accountId, status);
  const statusId = useId();
  const items = flows.data?.pages.flatMap((page) => page.items) ?? [];

  return (
    <>
      <h1>Flows</h1>
      <form className="filters" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor={statusId}>Status</label>
        <select id={statusId} value={status ?? ''} onChange={(event) => navigate(event.target.value ? `/flows?status=${event.target.value}` : '/flows')}>
          <option value="">All statuses</option>
          {experienceStatuses.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <CopyAsCurl request={{ method: 'GET', path: `/accounts/${accountId}/experiences${status ? `?status=${status}` : ''}` }} />
      </form>
      {flows.error && <ErrorMessage error={flows.error} />}
      {flows.isPending && <p role="status">Loading flows…</p>}
      {flows.isSuccess && items.length === 0 && <p>No flows{status ? ` with status ${status}` : ''} yet.</p>}
      {items.length > 0 && (
        <table className="list">
          <caption>{status ? `Flows with status ${status}` : 'All flows'}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Version</th>
              <th scope="col">Trigger</th>
              <th scope="col">Published</th>
            </tr>
          </thead>
          <tbody>
            {items.map((flow) => (
              <tr key={flow.experienceId}>
                <th scope="row">
                  <Link href={`/flows/${flow.experienceId}`}>{flow.name}</Link>
                </th>
                <td>{flow.status}</td>
                <td>{flow.version ?? '—'}</td>
                <td>
                  <code>{flow.definition.trigger.eventType}</code>
                </td>
                <td>{formatTime(flow.publishedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {flows.hasNextPage && (
        <button type="button" onClick={() => void flows.fetchNextPage()} disabled={flows.isFetchingNextPage}>
          {flows.isFetchingNextPage ? 'Loading…' : 'Show more'}
        </button>
      )}
    </>
  );
}
