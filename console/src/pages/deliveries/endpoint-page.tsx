import { useId } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatClock, formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { useAccountId } from '../../session/use-account-id.ts';
import { deliveryStatuses, useDeliveries, useEndpoint, type DeliveryStatus } from './delivery-queries.ts';
import { DeliveryRow } from './delivery-row.tsx';
import { RecoverFailed, SendTestEvent } from './endpoint-actions.tsx';

function statusFromSearch(search: string): DeliveryStatus | undefined {
  const value = new URLSearchParams(search).get('status');
  return deliveryStatuses.find((status) => status === value);
}

function DeliveriesList({ accountId, endpointId }: { accountId: string; endpointId: string }) {
  const status = statusFromSearch(useSearch());
  const [, navigate] = useLocation();
  const deliveries = useDeliveries(accountId, endpointId, status);
  const statusId = useId();
  const items = deliveries.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Deliveries</h2>
      <form className="filters" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor={statusId}>Status</label>
        <select id={statusId} value={status ?? ''} onChange={(event) => navigate(`/deliveries/${endpointId}${event.target.value ? `?status=${event.target.value}` : ''}`)}>
          <option value="">All statuses</option>
          {deliveryStatuses.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <CopyAsCurl request={{ method: 'GET', path: `/accounts/${accountId}/endpoints/${endpointId}/deliveries${status ? `?status=${status}` : ''}` }} />
      </form>
      {deliveries.error && <ErrorMessage error={deliveries.error} />}
      {deliveries.isPending && <p role="status">Loading deliveries…</p>}
      {deliveries.isSuccess && (
        <p className="hint" aria-live="polite">
          As of {formatClock(deliveries.dataUpdatedAt)}
        </p>
      )}
      {deliveries.isSuccess && items.length === 0 && <p>No deliveries{status ? ` with status ${status}` : ''}.</p>}
      {items.length > 0 && (
        <table className="list deliveries">
          <caption>Deliveries{status ? ` with status ${status}` : ''}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Last HTTP status</th>
              <th scope="col">Redelivery</th>
              <th scope="col">Created</th>
              <th scope="col">Attempts</th>
            </tr>
          </thead>
          <tbody>
            {items.map((delivery) => (
              <DeliveryRow key={delivery.deliveryId} delivery={delivery} accountId={accountId} endpointId={endpointId} />
            ))}
          </tbody>
        </table>
      )}
      {deliveries.hasNextPage && (
        <button type="button" onClick={() => void deliveries.fetchNextPage()} disabled={deliveries.isFetchingNextPage}>
          {deliveries.isFetchingNextPage ? 'Loading…' : 'Show more deliveries'}
        </button>
      )}
    </section>
  );
}

/** One endpoint: its settings, a test event, recovery since a time, and its deliveries with their attempts. */
export default function EndpointPage({ id }: { id: string }) {
  const accountId = useAccountId();
  const endpoint = useEndpoint(accountId, id);
  useDocumentTitle(endpoint.data ? `Endpoint ${endpoint.data.url}` : 'Endpoint');
  return (
    <>
      <p>
        <Link href="/deliveries">← Endpoints</Link>
      </p>
      {endpoint.error && <ErrorMessage error={endpoint.error} />}
      {endpoint.isPending && <p role="status">Loading the endpoint…</p>}
      {endpoint.data && (
        <>
          <h1>Endpoint {endpoint.data.url}</h1>
          <dl className="fields">
            {[
              ['Status', endpoint.data.status + (endpoint.data.disabledReason ? ` (${endpoint.data.disabledReason})` : '')],
              ['Event types', endpoint.data.eventTypes.join(', ')],
              ['Description', endpoint.data.description ?? '—'],
              ['Id', endpoint.data.endpointId],
              ['Created', formatTime(endpoint.data.createdAt)],
            ].map(([name, value]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          <SendTestEvent accountId={accountId} endpointId={id} />
          <RecoverFailed accountId={accountId} endpointId={id} />
          <DeliveriesList accountId={accountId} endpointId={id} />
        </>
      )}
    </>
  );
}
