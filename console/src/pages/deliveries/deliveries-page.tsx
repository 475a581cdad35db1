import { Link } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { useAccountId } from '../../session/use-account-id.ts';
import { useEndpoints } from './delivery-queries.ts';

/** The account's webhook endpoints; each links to its deliveries and attempts. */
export default function DeliveriesPage() {
  useDocumentTitle('Deliveries');
  const accountId = useAccountId();
  const endpoints = useEndpoints(accountId);
  const items = endpoints.data?.endpoints ?? [];

  return (
    <>
      <h1>Deliveries</h1>
      <p>Webhook endpoints of the account. Open one for its deliveries, their attempts, redelivery, recovery and a test event.</p>
      {endpoints.error && <ErrorMessage error={endpoints.error} />}
      {endpoints.isPending && <p role="status">Loading endpoints…</p>}
      {endpoints.isSuccess && items.length === 0 && <p>No endpoints yet: POST /accounts/{accountId}/endpoints adds one.</p>}
      {items.length > 0 && (
        <table className="list">
          <caption>Endpoints</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Status</th>
              <th scope="col">Event types</th>
              <th scope="col">Description</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((endpoint) => (
              <tr key={endpoint.endpointId}>
                <th scope="row">
                  <Link href={`/deliveries/${endpoint.endpointId}`}>{endpoint.url}</Link>
                </th>
                <td>
                  {endpoint.status}
                  {endpoint.disabledReason && <span className="hint"> ({endpoint.disabledReason})</span>}
                </td>
                <td>{endpoint.eventTypes.join(', ')}</td>
                <td>{endpoint.description ?? '—'}</td>
                <td>{formatTime(endpoint.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <CopyAsCurl request={{ method: 'GET', path: `/accounts/${accountId}/endpoints` }} />
    </>
  );
}
