import { useId, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { runStatuses, statusFrom, useRuns } from './flow-queries.ts';

/** A flow's runs, newest first, filtered by state (in the address) and by person. */
export function RunsSection({ accountId, experienceId }: { accountId: string; experienceId: string }) {
  const search = useSearch();
  const status = statusFrom(search, runStatuses);
  const clientUserId = new URLSearchParams(search).get('person') ?? undefined;
  const [, navigate] = useLocation();
  const [person, setPerson] = useState(clientUserId ?? '');
  const runs = useRuns(accountId, experienceId, { status, clientUserId });
  const [statusId, personId] = [useId(), useId()];
  const items = runs.data?.pages.flatMap((page) => page.items) ?? [];
  const go = (next: { status?: string | undefined; person?: string | undefined }) => {
    const query = new URLSearchParams(Object.entries(next).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
    navigate(`/flows/${experienceId}${query ? `?${query}` : ''}`);
  };
  const apiQuery = new URLSearchParams(Object.entries({ status, clientUserId }).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();

  return (
    <section aria-labelledby="flow-runs">
      <h2 id="flow-runs">Runs</h2>
      <form
        className="filters"
        onSubmit={(event) => {
          event.preventDefault();
          go({ status, person: person.trim() });
        }}
      >
        <label htmlFor={statusId}>State</label>
        <select id={statusId} value={status ?? ''} onChange={(event) => go({ status: event.target.value, person: clientUserId })}>
          <option value="">All states</option>
          {runStatuses.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <label htmlFor={personId}>Person (clientUserId)</label>
        <input id={personId} value={person} onChange={(event) => setPerson(event.target.value)} />
        <button type="submit">Show runs</button>
        <CopyAsCurl request={{ method: 'GET', path: `/accounts/${accountId}/experiences/${experienceId}/runs${apiQuery ? `?${apiQuery}` : ''}` }} />
      </form>
      {runs.error && <ErrorMessage error={runs.error} />}
      {runs.isPending && <p role="status">Loading runs…</p>}
      {runs.isSuccess && items.length === 0 && <p>No runs{status ? ` in state ${status}` : ''}{clientUserId ? ` of ${clientUserId}` : ''}.</p>}
      {items.length > 0 && (
        <table className="list runs">
          <caption>Runs{status ? ` in state ${status}` : ''}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">State</th>
              <th scope="col">At node</th>
              <th scope="col">Steps</th>
              <th scope="col">Entered</th>
              <th scope="col">Ended</th>
            </tr>
          </thead>
          <tbody>
            {items.map((run) => (
              <tr key={run.runId}>
                <th scope="row">
                  <Link href={`/flows/${experienceId}/runs/${run.runId}`}>{run.clientUserId ?? `anonymous ${run.runId}`}</Link>
                </th>
                <td>{run.status}</td>
                <td>{run.currentNodeId ?? '—'}</td>
                <td className="number">{run.path.length}</td>
                <td>{formatTime(run.enteredAt)}</td>
                <td>{run.endReason ? `${formatTime(run.endedAt)} (${run.endReason})` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {runs.hasNextPage && (
        <button type="button" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
          {runs.isFetchingNextPage ? 'Loading…' : 'Show more runs'}
        </button>
      )}
    </section>
  );
}
