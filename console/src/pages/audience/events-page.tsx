import { useId } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { useAccountId } from '../../session/use-account-id.ts';
import { useInboundEvents, type InboundEventStatus } from './audience-queries.ts';

/** The states in which ingest kept an event from a flow, with what each means; held first, the default. */
const notRouted: Array<[InboundEventStatus, string]> = [
  ['HELD', 'Held: the person is not known yet; released when they are'],
  ['IGNORED', 'Ignored: an event type the connection does not take'],
  ['EXPIRED', 'Expired: held past the connection’s hold time'],
  ['FAILED', 'Failed: could not be processed'],
];

function statusFromSearch(search: string): InboundEventStatus {
  const value = new URLSearchParams(search).get('status');
  return notRouted.find(([status]) => status === value)?.[0] ?? 'HELD';
}

/** Events that came in but reached no flow: held for a person not yet known, or refused (ignored, expired, failed). */
export default function EventsPage() {
  useDocumentTitle('Events at ingest');
  const accountId = useAccountId();
  const status = statusFromSearch(useSearch());
  const [, navigate] = useLocation();
  const events = useInboundEvents(accountId, status);
  const stateId = useId();
  const items = events.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <>
      <p>
        <Link href="/audience">← Audience</Link>
      </p>
      <h1>Events at ingest</h1>
      <form className="filters" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor={stateId}>State</label>
        <select id={stateId} value={status} onChange={(event) => navigate(`/audience/events?status=${event.target.value}`)}>
          {notRouted.map(([value, meaning]) => (
            <option key={value} value={value}>
              {meaning}
            </option>
          ))}
        </select>
        <CopyAsCurl request={{ method: 'GET', path: `/accounts/${accountId}/events?status=${status}&limit=50` }} />
      </form>
      {events.error && <ErrorMessage error={events.error} />}
      {events.isSuccess && items.length === 0 && <p>No events in this state.</p>}
      {items.length > 0 && (
        <table className="list">
          <caption>Events {status.toLowerCase()} at ingest, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event type</th>
              <th scope="col">Person</th>
              <th scope="col">Why</th>
              <th scope="col">Connection</th>
              <th scope="col">Received</th>
            </tr>
          </thead>
          <tbody>
            {items.map((event) => (
              <tr key={event.eventId}>
                <th scope="row">{event.eventType}</th>
                <td>{event.clientUserId ?? '—'}</td>
                <td>{event.statusReason ?? '—'}</td>
                <td>
                  <code>{event.connectionId}</code>
                </td>
                <td>{formatTime(event.receivedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {events.hasNextPage && (
        <button type="button" onClick={() => void events.fetchNextPage()} disabled={events.isFetchingNextPage}>
          {events.isFetchingNextPage ? 'Loading…' : 'Show more events'}
        </button>
      )}
    </>
  );
}
